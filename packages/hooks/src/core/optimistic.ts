import type { ChatState } from './chat-state.js';
import { composeMessages, optimisticMessage } from './chat-state.js';
import type { RunSessionState } from './store.js';
import type { ChatMessage, OutboxItem } from './types.js';

/**
 * The outbox's optimistic user messages, by run id: one object per waiting prompt (its
 * identity kept while only `pending` changes), dropped once the run is confirmed or the
 * prompt discarded, so the map is bounded by the outbox. It composes the transcript with
 * them (`composeMessages`).
 */
export class OptimisticMessages {
  private readonly byRun = new Map<string, ChatMessage>();
  private lastParts: unknown[] = [];

  /** The transcript, or null when none of its parts changed since the last call. */
  compose(chat: ChatState, run: RunSessionState): readonly ChatMessage[] | null {
    const parts = [
      chat.history,
      chat.settled,
      chat.prompt,
      chat.sending,
      chat.outbox,
      run.messages,
      run.runId,
    ];
    if (parts.every((part, i) => part === this.lastParts[i])) return null;
    this.lastParts = parts;
    return composeMessages(chat, run.messages, run.runId, (item, pending) =>
      this.of(item, pending),
    );
  }

  get size(): number {
    return this.byRun.size;
  }

  /** The prompt's message, as `pending` when given (a new object only when it changes). */
  of(item: OutboxItem, pending?: 'sending' | 'queued'): ChatMessage {
    const base = this.byRun.get(item.runId) ?? optimisticMessage(item);
    const next =
      pending === undefined || base.pending === pending
        ? base
        : ({ ...base, pending } as ChatMessage);
    this.byRun.set(item.runId, next);
    return next;
  }

  delete(runId: string): void {
    this.byRun.delete(runId);
  }

  clear(): void {
    this.byRun.clear();
  }
}
