/**
 * The AI SDK's own `useChat` on Resumable's transport (`/ai-sdk.html`): reload, go offline
 * or cut the stream mid-answer and the reply resumes from the exact offset, with no part
 * twice. The README's example, made runnable; the Chromium test drives it.
 */
import { Chat, useChat } from '@ai-sdk/react';
import { createResumableChatTransport } from '@resumable/hooks/ai-sdk';
import type { UIMessage } from 'ai';
import { type FormEvent, use, useState, useSyncExternalStore } from 'react';

const CHAT_ID = 'ai-sdk-demo';
const transport = createResumableChatTransport({ endpoint: '/api' });
// Made outside React: unmounting the view is then no `stop()` (useChat stops only the
// chats it made), and `follow` shows here the runs another tab of this chat starts.
const chat = new Chat({ id: CHAT_ID, transport });
transport.follow(chat);
// The stored conversation (history, this device's last prompt, the reply so far) before
// the resume stream continues the reply.
const loaded = transport.loadMessages(CHAT_ID).then(
  (messages) => {
    chat.messages = messages;
  },
  () => {},
);

declare global {
  interface Window {
    /** What `useChat` holds, for the e2e test to compare with the server. */
    __aiSdkChat?: { messages: UIMessage[]; status: string };
  }
}

export function AiSdkApp() {
  use(loaded);
  return <ChatView />;
}

function ChatView() {
  const { messages, sendMessage, stop, status, error } = useChat({ chat, resume: true });
  const [draft, setDraft] = useState('');
  // The session under the transport: its connection phase (streaming, offline, reconnecting…).
  const run = transport.session(CHAT_ID).run;
  const phase = useSyncExternalStore(run.store.subscribe, () => run.getState().connection.phase);
  window.__aiSdkChat = { messages, status };
  const busy = status === 'submitted' || status === 'streaming';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === '' || busy) return;
    void sendMessage({ text: draft });
    setDraft('');
  };

  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', fontFamily: 'system-ui' }}>
      <h1>useChat × Resumable</h1>
      <ol role="log" aria-label="Conversation" style={{ listStyle: 'none', padding: 0 }}>
        {messages.map((m) => (
          <li key={m.id} data-role={m.role} data-id={m.id}>
            <strong>{m.role}</strong>
            {m.parts.map((part, i) => {
              const key = `${m.id}:${i}`;
              if (part.type === 'text') {
                return (
                  <p key={key} data-part="text" style={{ whiteSpace: 'pre-wrap' }}>
                    {part.text}
                  </p>
                );
              }
              if (part.type === 'dynamic-tool') {
                return (
                  <p key={key} data-part="tool">
                    tool {part.toolName}: {part.state}
                  </p>
                );
              }
              return null;
            })}
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
          style={{ width: '100%' }}
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
    </main>
  );
}
