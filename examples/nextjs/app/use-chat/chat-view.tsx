'use client';

import { Chat, useChat } from '@ai-sdk/react';
import { createResumableChatTransport } from '@resumable/hooks/ai-sdk';
import { type FormEvent, Suspense, use, useState, useSyncExternalStore } from 'react';

/**
 * The AI SDK's own `useChat` on Resumable's transport: a reload, a dropped connection or a
 * second tab resumes the reply after the offset it reached, with no part twice, and Stop
 * cancels the run on the server.
 */

const CHAT_ID = 'use-chat-example';
const transport = createResumableChatTransport({ endpoint: '/api' });
// Made outside React: unmounting the view is then no stop(), and `follow` shows here the
// runs another tab of this chat starts.
const chat = new Chat({ id: CHAT_ID, transport });
transport.follow(chat);
// The stored conversation (history, the last prompt, the reply so far) before the resume
// stream continues the reply.
const loaded = transport.loadMessages(CHAT_ID).then(
  (messages) => {
    chat.messages = messages;
  },
  () => {},
);

export function ChatView() {
  return (
    <Suspense fallback={<p>Loading…</p>}>
      <Conversation />
    </Suspense>
  );
}

function Conversation() {
  use(loaded);
  const { messages, sendMessage, stop, status, error } = useChat({ chat, resume: true });
  const [draft, setDraft] = useState('');
  // The session under the transport: its connection phase (streaming, offline, reconnecting…).
  const run = transport.session(CHAT_ID).run;
  const phase = useSyncExternalStore(
    run.store.subscribe,
    () => run.getState().connection.phase,
    () => run.getState().connection.phase,
  );
  const busy = status === 'submitted' || status === 'streaming';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === '' || busy) return;
    void sendMessage({ text: draft });
    setDraft('');
  };

  return (
    <div className="use-chat">
      <ol aria-label="Conversation">
        {messages.map((m) => (
          <li key={m.id} data-role={m.role} data-id={m.id}>
            <strong>{m.role}</strong>
            {m.parts.map((part, i) =>
              part.type === 'text' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: parts have no id; their order is fixed
                <p key={i} data-part="text">
                  {part.text}
                </p>
              ) : null,
            )}
          </li>
        ))}
      </ol>
      {error ? <p role="alert">{error.message}</p> : null}
      <form onSubmit={submit}>
        <textarea
          aria-label="Message"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          rows={2}
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {busy ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : null}
        <span role="status" data-status={status} data-connection={phase}>
          {status} · {phase}
        </span>
      </form>
    </div>
  );
}
