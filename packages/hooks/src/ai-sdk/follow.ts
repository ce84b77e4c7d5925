import { isTerminalStatus, messageText } from '@resumable/protocol';
import type { UIMessage } from 'ai';
import type { ChatSession } from '../core/chat/chat-session.js';

/** What `follow` needs of an AI SDK `Chat` (`new Chat(…)` from `@ai-sdk/react`). */
export interface FollowableChat {
  /** The chat's id: the transport's `chatId`, the key of its session. */
  readonly id: string;
  /** The messages shown; a run another tab started adds its prompt here. */
  messages: UIMessage[];
  /** Streams the run the session follows (the AI SDK asks the transport's `reconnectToStream`). */
  resumeStream(): Promise<void>;
}

/**
 * Keeps `chat` on the runs its session joins without this page asking: another tab's
 * prompt (the session hears of it on the tabs' channel) or the thread's running reply.
 * Its prompt is added to `chat.messages` and `resumeStream()` streams the reply, so an idle
 * tab shows the other tab's exchange live. `ownRun` tells the page's own runs apart.
 */
export function followSession(
  session: ChatSession,
  chat: FollowableChat,
  ownRun: (runId: string) => boolean,
): () => void {
  return session.run.store.subscribe((state, prev) => {
    const runId = state.runId;
    // The run restored from this page's record is `useChat({ resume: true })`'s to resume.
    if (!prev.hydrated || runId === null || runId === prev.runId || ownRun(runId)) return;
    if (isTerminalStatus(state.status)) return;
    const messages = chat.messages.filter((m) => m.id !== runId);
    const prompt = session.getState().prompt;
    if (prompt?.runId === runId && !messages.some((m) => m.id === prompt.message.id)) {
      messages.push({
        id: prompt.message.id,
        role: 'user',
        parts: [{ type: 'text', text: messageText(prompt.message) }],
      });
    }
    chat.messages = messages;
    void chat.resumeStream();
  });
}
