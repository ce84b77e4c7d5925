import type { AGUIEvent, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  createRunState,
  EventType,
  isTerminalEvent,
  snapshotOf,
} from '@resumable/protocol';
import { putAnswer } from '../branches/history.js';
import { APPEND_RETRIES_MS, MAX_PENDING_EVENTS } from '../defaults.js';
import { sleep } from '../sleep.js';
import { isTerminalJson } from '../stores/stored-events.js';
import { historyMessage } from '../stores/stored-messages.js';
import type { EventStore, RunEnd, RunRecord, StoredEvent } from '../stores/types.js';
import { AppendConflictError, lostRunLog } from '../stores/types.js';
import type { Hub } from '../streams/subscription.js';
import { type PendingEvent, statusOf } from './events.js';

/** How long, and how much, a run keeps producing while its store is down. */
export interface OutageBudget {
  budgetMs: number;
  maxBytes: number;
  /** An append unanswered this long starts an outage (`RunLimits.storeStallMs`). */
  stallMs: number;
}

export interface RunLogOptions {
  store: EventStore;
  record: RunRecord;
  hub: Hub;
  log: (message: string) => void;
  /** The store refused the log for good (a conflict, or shutdown mid-outage): stop producing. */
  onFailed: (error: unknown) => void;
  /** A store outage outlasted its budget: the run must end `store_unavailable`. */
  onOutageTooLong: (message: string) => void;
  outage: OutageBudget;
  /** Aborted at shutdown: a failing store is not waited for any more. */
  shutdown: AbortSignal;
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
  private pendingBytes = 0;
  /** Bytes of event JSON queued so far (what `maxBytes` bounds). */
  private bytes = 0;
  /** Set once a terminal event is queued: the agent's further events are dropped. */
  terminalQueued = false;
  /** Set once RUN_STARTED is queued (the log must begin with it). */
  private startQueued = false;
  failed = false;
  private flushing: Promise<void> | null = null;
  /** Taken from `pending`, not stored yet (held through a store outage), in order. */
  private unstored: PendingEvent[] = [];
  private unstoredBytes = 0;
  /** When the current store outage began (`performance.now()`), or null. */
  private outageSince: number | null = null;
  /** Resolves when an outage begins: an agent held back by backpressure goes on then. */
  private outageSignal: { promise: Promise<void>; resolve: () => void } | null = null;
  private retries = 0;
  /** Highest offset published to the hub. */
  private published: number;
  private flushScheduled = false;

  constructor(private readonly options: RunLogOptions) {
    const { record } = options;
    this.nextOffset = record.lastOffset + 1;
    this.published = record.lastOffset;
    options.hub.held = (offset) => this.heldAfter(offset);
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
    // Backpressure while the store keeps up; during an outage the events wait in memory
    // (bounded by the outage budget) and the agent goes on.
    while (this.pending.length >= MAX_PENDING_EVENTS && !this.failed && this.outageSince === null) {
      await Promise.race([this.flush(), this.outageStarted()]);
    }
    if (this.outageSince !== null) this.checkOutageBudget(performance.now());
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
    this.pendingBytes += json.length;
    this.pending.push({ offset: this.nextOffset++, event, json });
    // The store is down or stalled: live subscribers get it now, from memory.
    if (this.outageSince !== null) this.publishHeld();
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
    if (this.pending.length + this.unstored.length === 0 || this.failed) return Promise.resolve();
    this.flushing = (async () => {
      try {
        while (this.pending.length + this.unstored.length > 0 && !this.failed) {
          this.pendingBytes = 0;
          await this.commit(this.pending.splice(0, this.pending.length));
        }
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /**
   * Appends everything not yet stored (events held through an outage, then `batch`) in
   * one conditional append. When the store fails, the events are held in memory and
   * published anyway (live subscribers keep going, offsets already final), and the append
   * is retried with backoff; past the outage budget the log fails.
   */
  private async commit(batch: PendingEvent[]): Promise<void> {
    const { store, record } = this.options;
    if (batch.length > 0) {
      for (const event of batch) this.unstored.push(event);
      this.unstoredBytes += batch.reduce((sum, e) => sum + e.json.length, 0);
      this.state = applyEnvelopes(this.state, batch).state;
    }
    const events = this.unstored;
    const last = events[events.length - 1]!;
    const end: RunEnd | undefined = isTerminalEvent(last.event)
      ? { status: statusOf(last.event), endedAt: Date.now(), snapshot: snapshotOf(this.state) }
      : undefined;
    const stored: StoredEvent[] = events.map((e) => ({ offset: e.offset, json: e.json }));
    // A store that does not answer (paused, partitioned) is an outage once `stallMs` has
    // passed: what is queued goes live from memory while the append waits for its answer.
    const stall = setTimeout(() => this.stalled(), this.options.outage.stallMs);
    try {
      await store.append(record.runId, stored, end);
    } catch (error) {
      const landed = this.landedBefore(error, events);
      if (landed === null) {
        if (lostRunLog(error)) this.fail(error);
        else await this.hold(stored, error);
        return;
      }
      if (landed < last.offset) {
        // Part landed: drop it and append the rest (the flush loop comes right back).
        this.unstored = this.unstored.filter((e) => e.offset > landed);
        this.unstoredBytes = this.unstored.reduce((sum, e) => sum + e.json.length, 0);
        return;
      }
    } finally {
      clearTimeout(stall);
    }
    if (this.outageSince !== null) {
      const ms = Math.round(performance.now() - this.outageSince);
      this.options.log(
        `run ${record.runId}: the store is back after ${ms} ms; ${events.length} held events stored`,
      );
    }
    this.unstored = [];
    this.unstoredBytes = 0;
    this.outageSince = null;
    this.retries = 0;
    this.publish(stored, end !== undefined);
    if (end) {
      const messages = end.snapshot.messages.map(historyMessage);
      await putAnswer(store, record, messages).catch((error) =>
        this.options.log(`run ${record.runId}: history not saved: ${error}`),
      );
    }
  }

  /**
   * During an outage, an append whose reply was lost may have landed: the store then
   * conflicts, expecting the offset after it. The last offset that landed, or null when
   * the conflict is a real one (another writer).
   */
  private landedBefore(error: unknown, events: PendingEvent[]): number | null {
    if (!(error instanceof AppendConflictError) || this.outageSince === null) return null;
    const landed = error.expectedOffset - 1;
    const first = events[0]!.offset;
    const last = events[events.length - 1]!.offset;
    return landed >= first && landed <= last ? landed : null;
  }

  /** The store failed: keep the events (within the budget), publish them, wait, retry. */
  private async hold(events: StoredEvent[], error: unknown): Promise<void> {
    const { shutdown } = this.options;
    const now = performance.now();
    this.beginOutage(now, `the store failed (${String(error)})`);
    // Never the terminal event: a client must not see an end the store may never take.
    const last = events[events.length - 1]!;
    this.publish(isTerminalJson(last.json) ? events.slice(0, -1) : events, false);
    if (shutdown.aborted) return this.fail(error);
    this.checkOutageBudget(now);
    const delay = APPEND_RETRIES_MS[Math.min(this.retries++, APPEND_RETRIES_MS.length - 1)]!;
    await sleep(delay, shutdown);
  }

  /** An append has had no answer for `stallMs`: an outage, whatever the append says later. */
  private stalled(): void {
    if (this.failed) return;
    const { stallMs } = this.options.outage;
    this.beginOutage(performance.now() - stallMs, `the store has not answered for ${stallMs} ms`);
    this.publishHeld();
  }

  private beginOutage(since: number, why: string): void {
    if (this.outageSince !== null) return;
    this.outageSince = since;
    const { record, outage } = this.options;
    this.options.log(
      `run ${record.runId}: ${why}; holding its events in memory for up to ${outage.budgetMs} ms`,
    );
    this.outageSignal?.resolve();
    this.outageSignal = null;
  }

  /** Resolves when an outage begins (the agent then stops waiting for the store). */
  private outageStarted(): Promise<void> {
    if (!this.outageSignal) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.outageSignal = { promise, resolve };
    }
    return this.outageSignal.promise;
  }

  /**
   * Past the budget the run stops producing and ends `store_unavailable`; that end is
   * stored after the held events once the store is back, so the log matches what live
   * readers saw. Memory stays bounded meanwhile: nothing more is queued.
   */
  private checkOutageBudget(now: number): void {
    const { outage } = this.options;
    if (this.terminalQueued || this.outageSince === null) return;
    if (now - this.outageSince > outage.budgetMs) {
      this.options.onOutageTooLong(`the store was unavailable for over ${outage.budgetMs} ms`);
    } else if (this.unstoredBytes + this.pendingBytes > outage.maxBytes) {
      this.options.onOutageTooLong(`over ${outage.maxBytes} bytes of events waited for the store`);
    }
  }

  /** During an outage: every event held or queued goes to live subscribers, but a terminal one. */
  private publishHeld(): void {
    const held = [...this.unstored, ...this.pending].filter(
      (e) => e.offset > this.published && !isTerminalJson(e.json),
    );
    if (held.length > 0) this.publish(held, false);
  }

  /** Publishes the events not published yet (held ones went out during the outage). */
  private publish(events: StoredEvent[], terminal: boolean): void {
    // The usual case (no outage): nothing of the batch went out yet.
    const fresh =
      events[0] !== undefined && events[0].offset > this.published
        ? events
        : events.filter((e) => e.offset > this.published);
    if (fresh.length === 0) return;
    this.published = fresh[fresh.length - 1]!.offset;
    this.options.hub.publish(fresh, terminal);
  }

  /** Events published but not stored yet, after `offset` (a catching-up reader's source). */
  heldAfter(offset: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (const e of [...this.unstored, ...this.pending]) {
      if (e.offset > offset && e.offset <= this.published)
        out.push({ offset: e.offset, json: e.json });
    }
    return out;
  }

  /** Stops the log: nothing more is stored; open streams fall back to reading the store. */
  private fail(error: unknown): void {
    const { record, log, hub, onFailed } = this.options;
    log(`run ${record.runId}: could not store events, stopping it: ${String(error)}`);
    this.failed = true;
    this.terminalQueued = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.unstored = [];
    this.unstoredBytes = 0;
    hub.shut();
    onFailed(error);
  }
}
