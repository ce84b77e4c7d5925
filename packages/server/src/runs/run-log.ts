import type { AGUIEvent, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  createRunState,
  EventType,
  isTerminalEvent,
  snapshotOf,
} from '@resumable/protocol';
import { sleep } from '../sleep.js';
import type { EventStore, RunEnd, RunRecord, StoredEvent } from '../stores/types.js';
import { AppendConflictError } from '../stores/types.js';
import type { Hub } from '../subscription.js';
import { type PendingEvent, statusOf, stripRunFields } from './events.js';

/** Pending events beyond which the agent waits for the store (backpressure). */
const MAX_PENDING = 512;
const APPEND_RETRIES_MS = [50, 250, 1000];

export interface RunLogOptions {
  store: EventStore;
  record: RunRecord;
  hub: Hub;
  log: (message: string) => void;
  /** The store refused the log for good: the producer must stop. */
  onFailed: (error: unknown) => void;
  /** Most events in the log, its terminal event included. */
  maxEvents: number;
  /** Most bytes of event JSON in the log (the terminal event may go past it). */
  maxBytes: number;
  /** An event would go past `maxEvents` or `maxBytes`: the run must end `run_too_large`. */
  onTooLarge: (message: string) => void;
}

/**
 * The write side of one run: assigns offsets, group-commits what is queued (everything
 * queued while an append is in flight goes in the next one), retries failed appends, and
 * publishes to the hub only what the store took.
 */
export class RunLog {
  /** Next offset to assign. */
  private nextOffset: number;
  /** Folded state of everything stored so far. */
  state: RunState;
  private pending: PendingEvent[] = [];
  /** Bytes of event JSON queued so far (what `maxBytes` bounds). */
  private bytes = 0;
  /** Set once a terminal event is queued: the agent's further events are dropped. */
  terminalQueued = false;
  /** Set once RUN_STARTED is queued (the log must begin with it). */
  private startQueued = false;
  failed = false;
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;

  constructor(private readonly options: RunLogOptions) {
    const { record } = options;
    this.nextOffset = record.lastOffset + 1;
    this.state = createRunState({
      from: record.lastOffset,
      runId: record.runId,
      threadId: record.threadId,
    });
  }

  /** Queues an event; waits when the store has fallen far behind (backpressure). */
  async queue(event: AGUIEvent): Promise<void> {
    if (this.terminalQueued || this.failed) return;
    const json = JSON.stringify(event);
    const { maxEvents, maxBytes } = this.options;
    // The last slot is the terminal event's.
    if (this.nextOffset >= maxEvents) {
      this.options.onTooLarge(`the run reached the limit of ${maxEvents} events`);
      return;
    }
    if (this.bytes + json.length > maxBytes) {
      this.options.onTooLarge(`the run reached the limit of ${maxBytes} bytes of events`);
      return;
    }
    this.queueRaw(event, json);
    while (this.pending.length >= MAX_PENDING && !this.failed) await this.flush();
  }

  /** Queues the run's one terminal event (and RUN_STARTED first if nothing was queued). */
  queueTerminal(event: AGUIEvent): void {
    if (this.terminalQueued || this.failed) return;
    // A run cancelled or shut down before the agent said anything still starts its log
    // with RUN_STARTED.
    if (!this.startQueued) {
      const { threadId, runId } = this.options.record;
      this.queueRaw({ type: EventType.RUN_STARTED, threadId, runId });
    }
    this.terminalQueued = true;
    this.queueRaw(event);
  }

  /** Resolves once everything queued so far is stored (or the log failed). */
  async settle(): Promise<void> {
    await this.flush();
    await this.flushing;
  }

  private queueRaw(event: AGUIEvent, json = JSON.stringify(event)): void {
    if (event.type === EventType.RUN_STARTED) this.startQueued = true;
    this.bytes += json.length;
    this.pending.push({ offset: this.nextOffset++, event, json });
    // Flush on the next turn of the event loop, not now: everything a fast agent yields in
    // the meantime goes in the same append (one transaction, one fan-out write) instead
    // of one each. A synchronous store would otherwise commit event by event.
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.length === 0 || this.failed) return Promise.resolve();
    this.flushing = (async () => {
      try {
        while (this.pending.length > 0 && !this.failed) {
          const batch = this.pending.splice(0, this.pending.length);
          await this.commit(batch);
        }
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  private async commit(batch: PendingEvent[]): Promise<void> {
    const { store, record, hub } = this.options;
    const last = batch[batch.length - 1]!;
    const terminal = isTerminalEvent(last.event);
    const { state } = applyEnvelopes(this.state, batch);
    const stored: StoredEvent[] = batch.map((e) => ({ offset: e.offset, json: e.json }));
    const end: RunEnd | undefined = terminal
      ? { status: statusOf(last.event), endedAt: Date.now(), snapshot: snapshotOf(state) }
      : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        await store.append(record.runId, stored, end);
        break;
      } catch (error) {
        const delay = APPEND_RETRIES_MS[attempt];
        if (error instanceof AppendConflictError || delay === undefined) {
          this.fail(error);
          return;
        }
        await sleep(delay);
      }
    }
    this.state = state;
    hub.publish(stored, terminal);
    if (end) {
      const messages = end.snapshot.messages.map(stripRunFields);
      await store
        .putMessages(record.threadId, record.runId, messages)
        .catch((error) => this.options.log(`run ${record.runId}: history not saved: ${error}`));
    }
  }

  /** Stops the log: nothing more is stored; open streams fall back to reading the store. */
  private fail(error: unknown): void {
    this.options.log(
      `run ${this.options.record.runId}: could not store events, stopping it: ${String(error)}`,
    );
    this.failed = true;
    this.terminalQueued = true;
    this.pending = [];
    this.options.hub.shut();
    this.options.onFailed(error);
  }
}
