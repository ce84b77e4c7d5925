import {
  type ResumableChatController,
  ResumableProvider,
  useResumableChat,
} from '@resumable/hooks';
import { type ChatTurn, useChatTurns } from '@resumable/hooks/turns';
import { useState } from 'react';

/** A turn's text: a prompt's, or an answer's (its reasoning and tool calls left out). */
const textOf = (turn: ChatTurn) =>
  turn.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n\n');

function Turn({ turn, chat }: { turn: ChatTurn; chat: ResumableChatController }) {
  const [editing, setEditing] = useState(false);
  const id = turn.messageId; // what regenerate, edit and switchBranch take
  if (id === null) return null;
  const { branch } = turn;
  return (
    <li>
      <b>{turn.role}</b> {textOf(turn)}
      {branch && (
        <span>
          <button
            type="button"
            disabled={branch.index === 0}
            onClick={() => chat.switchBranch(id, branch.index - 1)}
          >
            ‹
          </button>
          {branch.index + 1} / {branch.count}
          <button
            type="button"
            disabled={branch.index === branch.count - 1}
            onClick={() => chat.switchBranch(id, branch.index + 1)}
          >
            ›
          </button>
        </span>
      )}
      {turn.role === 'assistant' && !turn.streaming && (
        <button type="button" onClick={() => chat.regenerate(id)}>
          Regenerate
        </button>
      )}
      {turn.role === 'user' && !turn.pending && !editing && (
        <button type="button" onClick={() => setEditing(true)}>
          Edit
        </button>
      )}
      {editing && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const box = e.currentTarget.elements.namedItem('text') as HTMLInputElement;
            void chat.edit(id, box.value);
            setEditing(false);
          }}
        >
          <input name="text" defaultValue={textOf(turn)} />
          <button type="submit">Save</button>
        </form>
      )}
    </li>
  );
}

export function Chat() {
  const chat = useResumableChat();
  const turns = useChatTurns(chat);
  return (
    <ul role="log">
      {turns.map((turn) => (
        <Turn key={turn.key} turn={turn} chat={chat} />
      ))}
    </ul>
  );
}

export function App() {
  return (
    <ResumableProvider endpoint="/api">
      <Chat />
    </ResumableProvider>
  );
}
