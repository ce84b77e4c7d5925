/**
 * The AI SDK's own `useChat` on Resumable's transport (`/ai-sdk.html`): reload, go offline
 * or cut the stream mid-answer and the reply resumes from the exact offset, with no part
 * twice. Its messages are drawn by the kit's parts (`ui-messages.ts`): Markdown, reasoning,
 * tool cards. The README's example, made runnable; the Chromium test drives it.
 */
import { Chat, useChat } from '@ai-sdk/react';
import { createResumableChatTransport } from '@resumable/hooks/ai-sdk';
import { ChatRoot, Composer, MessageList } from '@resumable/ui';
import type { UIMessage } from 'ai';
import { use, useMemo, useSyncExternalStore } from 'react';
import { chatMessagesOf } from './ui-messages.js';

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
  // The session under the transport: its connection phase (streaming, offline, reconnecting…).
  const run = transport.session(CHAT_ID).run;
  const phase = useSyncExternalStore(run.store.subscribe, () => run.getState().connection.phase);
  window.__aiSdkChat = { messages, status };
  const busy = status === 'submitted' || status === 'streaming';
  // The kit's parts draw the AI SDK's messages: Markdown, reasoning, tool cards.
  const shown = useMemo(() => chatMessagesOf(messages), [messages]);

  return (
    <ChatRoot className="ai-sdk">
      <header className="ai-sdk__header">
        <h1>useChat × Resumable</h1>
        <a href="./">← The demo</a>
      </header>
      <MessageList messages={shown} isStreaming={busy} />
      {error ? (
        <p role="alert" className="ai-sdk__error">
          {error.message}
        </p>
      ) : null}
      <Composer
        onSend={(text) => {
          void sendMessage({ text });
        }}
        onStop={() => void stop()}
        isStreaming={busy}
        offline={phase === 'offline'}
      />
      <p role="status" className="ai-sdk__status" data-status={status} data-connection={phase}>
        {status} · {phase}
      </p>
    </ChatRoot>
  );
}
