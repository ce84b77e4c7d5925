import { type ResumableChatController, useResumableChat } from '@resumable/hooks';
import { type TurnPart, useChatTurns } from '@resumable/hooks/turns';
import { Markdown } from '@resumable/ui';

export function Transcript() {
  const chat = useResumableChat();
  const turns = useChatTurns(chat);
  return (
    <ol role="log">
      {turns.map((turn) => (
        <li key={turn.key} data-role={turn.role}>
          {turn.parts.map((part, i) => (
            <Part key={i} part={part} chat={chat} />
          ))}
          {turn.streaming && turn.parts.length === 0 && <p>Thinking…</p>}
        </li>
      ))}
    </ol>
  );
}

function Part({ part, chat }: { part: TurnPart; chat: ResumableChatController }) {
  switch (part.type) {
    case 'text':
      return <Markdown text={part.text} streaming={part.streaming} />;
    case 'reasoning':
      return (
        <details open={part.streaming}>
          <summary>{part.streaming ? 'Thinking' : 'Thought'}</summary>
          {part.text}
        </details>
      );
    case 'file':
      return <a href={part.url}>{part.name}</a>;
    case 'tool': {
      const approval = part.status === 'awaiting_approval' ? part.interrupt : null;
      return (
        <section>
          <h4>
            {part.toolName} · {part.status}
          </h4>
          <pre>{part.arguments}</pre>
          {part.result && <pre>{part.result.error ?? part.result.content}</pre>}
          {approval && (
            <p>
              {approval.message}
              <button type="button" onClick={() => chat.resolve(approval.id, { approved: true })}>
                Approve
              </button>
              <button type="button" onClick={() => chat.resolve(approval.id, { approved: false })}>
                Deny
              </button>
            </p>
          )}
        </section>
      );
    }
    case 'interrupt':
      return <p>{part.interrupt.message}</p>;
  }
}
