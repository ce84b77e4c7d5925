import { optimisticMessage } from './chat-state.js';
import type { ChatMessage, OutboxItem } from './types.js';

/**
 * The outbox's optimistic user messages, by run id: one object per waiting prompt (its
 * identity kept while only `pending` changes), dropped once the run is confirmed or the
 * prompt discarded, so the map is bounded by the outbox.
 */
export class OptimisticMessages {
  private readonly byRun = new Map<string, ChatMessage>();

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
