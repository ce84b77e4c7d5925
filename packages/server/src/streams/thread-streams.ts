import { ResumableError } from '@resumable/protocol';
import { sleep } from '../sleep.js';
import type { StoredEvent, ThreadLogStore } from '../stores/types.js';
import { Hub, Subscription, type SubscriptionSource } from './subscription.js';

export interface ThreadStreamsOptions {
  log: ThreadLogStore;
  maxSubscribersPerThread: number;
  subscriberBufferEvents: number;
  pollMs: number;
  warn: (message: string) => void;
  /** Whether an event (its JSON) is the thread's last: its streams end right after it. */
  isLast: (json: string) => boolean;
}

/**
 * The open `GET /threads/{id}/events` streams of this instance. Each one is a run stream's
 * `Subscription` (replay from the store, then live, heartbeats, a bounded queue) over the
 * thread's log, which has no terminal event: its body only closes when the server drops
 * it or its live feed fails, and the client resumes by offset. One hub per thread with
 * subscribers here, fed by the store's live tail (shared stores) or by this instance's own
 * appends (`published`).
 */
export class ThreadStreams {
  private readonly hubs = new Map<string, Hub>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly byThread = new Map<string, number>();
  /** Streams opened since start (what a test counts connections with). */
  opened = 0;

  constructor(private readonly options: ThreadStreamsOptions) {}

  /**
   * The stream after `after`, or throws `409 offset_ahead`, `410 offset_expired`,
   * `429 too_many_requests`.
   */
  async open(threadId: string, after: number): Promise<Subscription> {
    const { log } = this.options;
    const head = await log.head(threadId);
    if (after > head.last) {
      throw new ResumableError(
        'offset_ahead',
        `after=${after} is beyond the thread's last offset ${head.last}`,
      );
    }
    if (head.first > 0 && after < head.first - 1) {
      throw new ResumableError(
        'offset_expired',
        `the events of thread ${threadId} after ${after} are no longer retained; fetch GET /threads/${threadId} and continue from its lastOffset`,
      );
    }
    const open = this.byThread.get(threadId) ?? 0;
    if (open >= this.options.maxSubscribersPerThread) {
      throw new ResumableError(
        'too_many_requests',
        `thread ${threadId} has ${open} open event streams, the limit`,
        { retryAfter: 1 },
      );
    }
    const hub = this.hub(threadId, head.last);
    const subscription: Subscription = new Subscription({
      store: this.source(threadId, () => subscription),
      runId: threadId,
      after,
      hub,
      terminalOffset: null,
      bufferEvents: this.options.subscriberBufferEvents,
      pollMs: this.options.pollMs,
      onClose: (sub) => this.closed(sub),
    });
    this.subscriptions.add(subscription);
    this.byThread.set(threadId, open + 1);
    this.opened++;
    return subscription;
  }

  /** An event this instance stored: live streams get it (stores without a live tail). */
  published(threadId: string, event: StoredEvent): void {
    if (this.options.log.subscribe) return;
    this.hubs.get(threadId)?.publish([event], this.options.isLast(event.json));
  }

  count(threadId?: string): number {
    return threadId === undefined ? this.subscriptions.size : (this.byThread.get(threadId) ?? 0);
  }

  ping(now: number, idleMs: number): void {
    for (const sub of this.subscriptions) sub.ping(now, idleMs);
  }

  /**
   * Resolves once every open stream of the thread has sent `offset` (or closed), or after
   * `timeoutMs`: a shared store's tail delivers an announcement a moment after it is stored.
   */
  async delivered(threadId: string, offset: number, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    const behind = () =>
      [...this.subscriptions].some((sub) => sub.runId === threadId && sub.cursor < offset);
    for (let i = 0; i < 1000 && behind() && Date.now() < until; i++) await sleep(10);
  }

  /**
   * Closes the streams (of one thread, or all) gracefully: clients resume, and a deleted
   * thread's clients get `404` then. Returns how many.
   */
  drop(threadId?: string): number {
    const closing = [...this.subscriptions].filter(
      (sub) => threadId === undefined || sub.runId === threadId,
    );
    for (const sub of closing) sub.close(true);
    return closing.length;
  }

  close(): void {
    this.drop();
    for (const hub of this.hubs.values()) hub.stopTail?.();
    this.hubs.clear();
  }

  /**
   * The log as a subscription reads it. Events that do not continue the resume point were
   * trimmed while the stream replayed: its body ends, and the reconnect answers `410`.
   */
  private source(threadId: string, subscription: () => Subscription): SubscriptionSource {
    const { log } = this.options;
    return {
      readEvents: async (_id, after, limit) => {
        const events = await log.read(threadId, after, limit);
        if (events.length > 0 && events[0]!.offset !== after + 1) {
          subscription().close(true);
          return [];
        }
        return events;
      },
      // Asked only once the live feed is gone: no record, so the body ends and the
      // client resumes on a fresh feed.
      getRun: async () => null,
    };
  }

  private hub(threadId: string, last: number): Hub {
    const existing = this.hubs.get(threadId);
    if (existing && !existing.closed) return existing;
    const hub = new Hub(threadId, last);
    this.hubs.set(threadId, hub);
    const { log, warn } = this.options;
    if (log.subscribe) {
      hub.stopTail = log.subscribe(
        threadId,
        last,
        // A deletion announced on another instance ends this one's streams too.
        (events) =>
          hub.publish(
            events,
            events.some((e) => this.options.isLast(e.json)),
          ),
        (error) => {
          warn(`live tail of thread ${threadId} failed: ${String(error)}`);
          this.release(hub);
          hub.shut();
        },
      );
    }
    return hub;
  }

  private release(hub: Hub): void {
    hub.stopTail?.();
    hub.stopTail = null;
    if (this.hubs.get(hub.runId) === hub) this.hubs.delete(hub.runId);
  }

  private closed(sub: Subscription): void {
    if (this.subscriptions.delete(sub)) {
      const left = (this.byThread.get(sub.runId) ?? 1) - 1;
      if (left > 0) this.byThread.set(sub.runId, left);
      else this.byThread.delete(sub.runId);
    }
    const hub = this.hubs.get(sub.runId);
    if (hub && hub.subscribers.size === 0) {
      this.release(hub);
      hub.closed = true;
    }
  }
}
