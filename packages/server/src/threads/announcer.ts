import { ANNOUNCE_RETRIES_MS } from '../defaults.js';
import { sleep } from '../sleep.js';
import type { StoredEvent, ThreadLogStore } from '../stores/types.js';

export interface AnnouncerOptions {
  log: ThreadLogStore;
  /** Events each thread's log keeps (the store trims the rest). */
  keep: number;
  /** How long an announcement is retried while the store fails, then dropped. */
  budgetMs: number;
  /** Announcements waiting at once, all threads together; past it new ones are dropped. */
  maxQueued: number;
  /** Called with each stored event, in offset order per thread. */
  onStored: (threadId: string, event: StoredEvent) => void;
  warn: (message: string) => void;
}

interface Pending {
  json: string;
  resolve: (offset: number | null) => void;
}

/**
 * Writes announcements to the thread logs without ever holding up a run: `announce`
 * queues and returns at once. Each thread's queue is written in order, one append at a
 * time, so a run's `run_started` always lands before its `run_ended`. While the store
 * fails, the head of the queue is retried with backoff for `budgetMs` (the run's own
 * outage budget), then dropped with a warning: offsets are assigned by the store, so a
 * dropped announcement leaves no gap.
 */
export class Announcer {
  private readonly queues = new Map<string, Pending[]>();
  private queued = 0;
  /** Set by `close`: failing appends are not retried any more. */
  private readonly closing = new AbortController();

  constructor(private readonly options: AnnouncerOptions) {}

  /** Queues `event` for the thread's log; resolves its offset, or null if dropped. */
  announce(threadId: string, event: unknown): Promise<number | null> {
    if (this.queued >= this.options.maxQueued) {
      this.options.warn(`thread ${threadId}: ${this.queued} announcements waiting; one dropped`);
      return Promise.resolve(null);
    }
    const json = JSON.stringify(event);
    return new Promise((resolve) => {
      const queue = this.queues.get(threadId);
      this.queued++;
      if (queue) {
        queue.push({ json, resolve });
        return;
      }
      this.queues.set(threadId, [{ json, resolve }]);
      void this.drain(threadId);
    });
  }

  /** Announcements not written yet. */
  get pending(): number {
    return this.queued;
  }

  /**
   * Waits (at most `timeoutMs`) for what is queued to be written, then stops retrying:
   * whatever the store still refuses is dropped.
   */
  async close(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.queued > 0 && Date.now() < until) await sleep(10);
    this.closing.abort();
  }

  private async drain(threadId: string): Promise<void> {
    const queue = this.queues.get(threadId)!;
    while (queue.length > 0) {
      const item = queue[0]!;
      const offset = await this.write(threadId, item.json);
      queue.shift();
      this.queued--;
      item.resolve(offset);
    }
    this.queues.delete(threadId);
  }

  private async write(threadId: string, json: string): Promise<number | null> {
    const { log, keep, budgetMs, warn } = this.options;
    const since = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        const offset = await log.append(threadId, json, keep);
        if (offset !== null) this.options.onStored(threadId, { offset, json });
        return offset;
      } catch (error) {
        if (this.closing.signal.aborted || performance.now() - since >= budgetMs) {
          warn(`thread ${threadId}: an announcement was not stored, dropped: ${String(error)}`);
          return null;
        }
        await sleep(
          ANNOUNCE_RETRIES_MS[Math.min(attempt, ANNOUNCE_RETRIES_MS.length - 1)]!,
          this.closing.signal,
        );
      }
    }
  }
}
