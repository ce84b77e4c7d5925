import { ResumableError } from '@resumable/protocol';
import { isTerminalJson } from '../stores/stored-events.js';
import type { EventStore, RunRecord } from '../stores/types.js';
import { Hub, Subscription } from './subscription.js';

export type StreamOpen =
  | { kind: 'stream'; subscription: Subscription }
  | { kind: 'no-content' }
  | { kind: 'error'; error: ResumableError };

export interface FanOutOptions {
  store: EventStore;
  maxSubscribersPerRun: number;
  subscriberBufferEvents: number;
  pollMs: number;
  coalesceMs: number;
  log: (message: string) => void;
  /** The hub of a run this instance produces, if it does. */
  localHub: (runId: string) => Hub | null;
}

/**
 * Live delivery: the open event streams of this instance, and one hub per run that has
 * subscribers here (fed by the local producer, or by the store's cross-instance tail).
 */
export class FanOut {
  private readonly hubs = new Map<string, Hub>();
  private readonly subscriptions = new Set<Subscription>();
  /** Open streams per run: checked against the limit at every stream open. */
  private readonly subscribersByRun = new Map<string, number>();
  /** Streams opened since start. */
  opened = 0;

  constructor(private readonly options: FanOutOptions) {}

  /** A new hub for a run this instance starts producing. */
  openLocalHub(runId: string): Hub {
    const hub = new Hub(runId, 0, this.options.coalesceMs);
    this.hubs.set(runId, hub);
    return hub;
  }

  /** The producer is done: its hub is shut and forgotten. */
  closeLocalHub(hub: Hub): void {
    if (this.hubs.get(hub.runId) === hub) this.hubs.delete(hub.runId);
    if (!hub.closed) hub.shut();
  }

  hub(runId: string): Hub | undefined {
    return this.hubs.get(runId);
  }

  subscriberCount(runId?: string): number {
    if (runId === undefined) return this.subscriptions.size;
    return this.subscribersByRun.get(runId) ?? 0;
  }

  /** See `RunManager.openStream`. */
  open(record: RunRecord, after: number): StreamOpen {
    const local = this.options.localHub(record.runId);
    const current = local ? local.lastPublished : record.lastOffset;
    const lastOffset = Math.max(current, record.lastOffset);
    if (after > lastOffset) {
      return failed('offset_ahead', `after=${after} is beyond the run's last offset ${lastOffset}`);
    }
    // Ended per the store record, even while its producer is still wrapping up here (the
    // terminal event is stored before the run leaves `active`): then 204, not an empty 200.
    const ended = record.status !== 'running';
    if (ended && after >= record.lastOffset) return { kind: 'no-content' };
    if (ended && record.eventsPruned) {
      return failed(
        'offset_expired',
        `the events of run ${record.runId} are no longer retained; fetch GET /runs/${record.runId} and continue from its lastOffset ${record.lastOffset}`,
      );
    }
    const open = this.subscriberCount(record.runId);
    if (open >= this.options.maxSubscribersPerRun) {
      return {
        kind: 'error',
        error: new ResumableError(
          'too_many_requests',
          `run ${record.runId} has ${open} open streams, the limit`,
          { retryAfter: 1 },
        ),
      };
    }
    const hub = ended ? null : (local ?? this.remoteHub(record));
    const subscription = new Subscription({
      store: this.options.store,
      runId: record.runId,
      after,
      hub,
      terminalOffset: ended ? record.lastOffset : null,
      bufferEvents: this.options.subscriberBufferEvents,
      pollMs: this.options.pollMs,
      onClose: (sub) => this.onSubscriptionClosed(sub),
    });
    this.subscriptions.add(subscription);
    this.subscribersByRun.set(record.runId, open + 1);
    this.opened++;
    return { kind: 'stream', subscription };
  }

  /** Closes open streams (of one run, or all) gracefully; returns how many. */
  drop(runId?: string): number {
    let closed = 0;
    for (const sub of [...this.subscriptions]) {
      if (runId !== undefined && sub.runId !== runId) continue;
      sub.close(true);
      closed++;
    }
    return closed;
  }

  /** Shutdown: every stream closes, every remote tail stops. */
  close(): void {
    this.drop();
    for (const hub of this.hubs.values()) hub.stopTail?.();
  }

  /** Pings every stream idle for `idleMs`. */
  ping(now: number, idleMs: number): void {
    for (const sub of this.subscriptions) sub.ping(now, idleMs);
  }

  /** A hub fed by the store's cross-instance tail, or none (subscribers then poll). */
  private remoteHub(record: RunRecord): Hub | null {
    const existing = this.hubs.get(record.runId);
    if (existing && !existing.closed) return existing;
    const { store } = this.options;
    if (!store.subscribe) return null;
    const hub = new Hub(record.runId, record.lastOffset, this.options.coalesceMs);
    hub.stopTail = store.subscribe(
      record.runId,
      record.lastOffset,
      (events) => {
        const last = events[events.length - 1];
        const terminal = last !== undefined && isTerminalJson(last.json);
        hub.publish(events, terminal);
        if (terminal) this.releaseHub(hub);
      },
      (error) => {
        this.options.log(`live tail of run ${record.runId} failed: ${String(error)}`);
        hub.shut();
        this.releaseHub(hub);
      },
    );
    this.hubs.set(record.runId, hub);
    return hub;
  }

  private releaseHub(hub: Hub): void {
    hub.stopTail?.();
    hub.stopTail = null;
    if (this.hubs.get(hub.runId) === hub && !this.options.localHub(hub.runId)) {
      this.hubs.delete(hub.runId);
    }
  }

  private onSubscriptionClosed(sub: Subscription): void {
    if (this.subscriptions.delete(sub)) {
      const left = (this.subscribersByRun.get(sub.runId) ?? 1) - 1;
      if (left > 0) this.subscribersByRun.set(sub.runId, left);
      else this.subscribersByRun.delete(sub.runId);
    }
    const hub = this.hubs.get(sub.runId);
    // A remote tail with nobody listening is stopped; a local producer's hub stays.
    if (hub?.stopTail && hub.subscribers.size === 0) this.releaseHub(hub);
  }
}

function failed(code: 'offset_ahead' | 'offset_expired', message: string): StreamOpen {
  return { kind: 'error', error: new ResumableError(code, message) };
}
