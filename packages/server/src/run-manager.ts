import type { AGUIEvent, Envelope, Message, RunAgentInput, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  checkEvent,
  createRunState,
  EventType,
  isTerminalEvent,
  ResumableError,
  type RunSnapshot,
  snapshotOf,
} from '@resumable/protocol';
import type { Agent } from './agents/types.js';
import { sleep } from './sleep.js';
import type { EventStore, RunEnd, RunRecord, StoredEvent } from './stores/types.js';
import { AppendConflictError } from './stores/types.js';
import { Hub, Subscription } from './subscription.js';

export interface RunLimits {
  /**
   * Runs this instance produces at once; `POST /runs` beyond it answers `429`.
   * @default 100
   */
  maxConcurrentRuns: number;
  /**
   * Open event streams per run on this instance; more answer `429`.
   * @default 2000
   */
  maxSubscribersPerRun: number;
  /**
   * Events a live subscriber may have queued (sent but not taken by its connection)
   * before it is disconnected to resume by offset.
   * @default 1000
   */
  subscriberBufferEvents: number;
}

export const DEFAULT_LIMITS: RunLimits = {
  maxConcurrentRuns: 100,
  maxSubscribersPerRun: 2000,
  subscriberBufferEvents: 1000,
};

export interface RunManagerOptions {
  store: EventStore;
  agent: Agent;
  limits?: Partial<RunLimits>;
  /**
   * Longest silence on a live stream: one idle for half of it gets a `: ping` comment.
   * @default 15000
   */
  heartbeatMs?: number;
  /**
   * Hours a finished run's events are kept; afterwards `after` below `lastOffset` answers
   * `410` and the snapshot (`GET /runs/:id`) remains.
   * @default 168
   */
  retentionHours?: number;
  /**
   * This instance's id, stored as the owner of the runs it produces.
   * @default a random UUID
   */
  instanceId?: string;
  /**
   * Lease time for shared stores that support ownership leases.
   * @default 15000
   */
  leaseMs?: number;
  /**
   * How often a subscriber of a run with no live feed re-reads the store.
   * @default 250
   */
  pollMs?: number;
  /**
   * With 32 or more subscribers on a run, live events are sent at most once per this many
   * milliseconds (grouped), trading that much latency for far fewer socket writes. `0`
   * sends every batch at once.
   * @default 15
   */
  fanoutCoalesceMs?: number;
  /** Where warnings go. @default console.warn */
  log?: (message: string) => void;
}

/** Pending events beyond which the agent waits for the store (backpressure). */
const MAX_PENDING = 512;
const ABORTED = Symbol('aborted');
const SLOW_START = Symbol('slow start');
/** How long the manager waits for an agent's own RUN_STARTED before sending one. */
const START_GRACE_MS = 50;
const APPEND_RETRIES_MS = [50, 250, 1000];
/** Backoff while ending a run whose events the store failed to take; the last step repeats. */
const LOST_END_RETRIES_MS = [250, 1000, 2500, 5000];

interface PendingEvent {
  offset: number;
  event: AGUIEvent;
  json: string;
}

/** A run this instance is producing. */
class ActiveRun {
  readonly abort = new AbortController();
  /** Next offset to assign. */
  nextOffset: number;
  /** Folded state of everything stored so far. */
  state: RunState;
  pending: PendingEvent[] = [];
  /** Set once a terminal event is queued: the agent's further events are dropped. */
  terminalQueued = false;
  /** Set once RUN_STARTED is queued (the log must begin with it). */
  startQueued = false;
  cancelRequested = false;
  failed = false;
  flushing: Promise<void> | null = null;
  flushScheduled = false;
  readonly done: Promise<void>;
  resolveDone!: () => void;

  constructor(
    readonly record: RunRecord,
    readonly hub: Hub,
  ) {
    this.nextOffset = record.lastOffset + 1;
    this.state = createRunState({
      from: record.lastOffset,
      runId: record.runId,
      threadId: record.threadId,
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }
}

export type StreamOpen =
  | { kind: 'stream'; subscription: Subscription }
  | { kind: 'no-content' }
  | { kind: 'error'; error: ResumableError };

/**
 * Runs agents detached from any request: assigns offsets, stores every event before
 * anyone sees it, fans out to live subscribers, ends every run with exactly one terminal
 * event, and ends runs whose producer died with `RUN_ERROR code:"agent_lost"`.
 */
export class RunManager {
  readonly store: EventStore;
  readonly instanceId: string;
  readonly limits: RunLimits;
  readonly heartbeatMs: number;
  private readonly agent: Agent;
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly coalesceMs: number;
  private readonly log: (message: string) => void;
  private readonly active = new Map<string, ActiveRun>();
  /** Hubs of runs with local subscribers: local producers and remote tails. */
  private readonly hubs = new Map<string, Hub>();
  private readonly subscriptions = new Set<Subscription>();
  /** Open streams per run: checked against the limit at every stream open. */
  private readonly subscribersByRun = new Map<string, number>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly cleanups: Array<() => void> = [];
  private closing = false;
  /** Aborted by `close()`: ends the waits of background retries. */
  private readonly shutdown = new AbortController();
  /** Runs between the limit check and their registration. */
  private starting = 0;

  constructor(options: RunManagerOptions) {
    this.store = options.store;
    this.agent = options.agent;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.retentionMs = (options.retentionHours ?? 168) * 3_600_000;
    this.instanceId = options.instanceId ?? crypto.randomUUID();
    this.leaseMs = options.leaseMs ?? 15_000;
    this.pollMs = options.pollMs ?? 250;
    this.coalesceMs = options.fanoutCoalesceMs ?? 15;
    this.log = options.log ?? ((message) => console.warn(`[resumable] ${message}`));
  }

  /** Ends orphaned runs, prunes expired events and starts the housekeeping timers. */
  async init(): Promise<void> {
    await this.endOrphans();
    await this.pruneExpiredEvents();
    const tick = Math.max(10, Math.floor(this.heartbeatMs / 3));
    this.timers.push(setInterval(() => this.heartbeat(), tick));
    this.timers.push(setInterval(() => void this.pruneExpiredEvents(), 10 * 60_000));
    if (this.store.shared) {
      // A third of the lease: a dead instance's runs end within ~1⅓ leases of its death.
      this.timers.push(setInterval(() => void this.endOrphans(), this.leaseMs / 3));
      if (this.store.renewLease) {
        this.timers.push(setInterval(() => void this.renewLeases(), this.leaseMs / 3));
      }
    }
    if (this.store.onCancelRequest) {
      this.cleanups.push(this.store.onCancelRequest((runId) => this.cancelLocal(runId)));
    }
    for (const timer of this.timers) timer.unref?.();
  }

  /** Runs this instance is producing right now. */
  get activeRunCount(): number {
    return this.active.size;
  }

  /** Open event streams (of one run, or all). */
  subscriberCount(runId?: string): number {
    if (runId === undefined) return this.subscriptions.size;
    return this.subscribersByRun.get(runId) ?? 0;
  }

  /**
   * Starts a run for a thread that already exists (the HTTP layer creates threads).
   * Idempotent by `input.runId`: when the run exists, nothing starts and `created` is false.
   */
  async startRun(input: RunAgentInput): Promise<{ created: boolean; run: RunRecord }> {
    if (this.closing) throw new ResumableError('store_unavailable', 'the server is shutting down');
    // Slots are taken before the first await, so concurrent POSTs cannot overshoot. An
    // existing run is found by `createRun` (atomic), so the usual path reads no record first.
    if (this.active.size + this.starting >= this.limits.maxConcurrentRuns) {
      // A retry of a run that exists is answered even at the limit.
      const existing = await this.store.getRun(input.runId);
      if (existing) return { created: false, run: existing };
      throw new ResumableError(
        'too_many_requests',
        `this server is producing ${this.active.size + this.starting} runs, its limit`,
        { retryAfter: 1 },
      );
    }
    this.starting++;
    let result: { created: boolean; run: RunRecord };
    try {
      result = await this.store.createRun({
        runId: input.runId,
        threadId: input.threadId,
        createdAt: Date.now(),
        owner: this.instanceId,
      });
    } finally {
      this.starting--;
    }
    if (!result.created) return result;
    // Registered at once: a subscriber arriving now follows it live, not by polling.
    const run = new ActiveRun(result.run, new Hub(input.runId, 0, this.coalesceMs));
    this.active.set(input.runId, run);
    this.hubs.set(input.runId, run.hub);
    try {
      if (this.store.acquireLease) {
        await this.store.acquireLease(input.runId, this.instanceId, this.leaseMs);
      }
      const prompt = input.messages.filter((m) => m.role !== 'assistant' && m.role !== 'tool');
      if (prompt.length > 0) await this.store.putMessages(input.threadId, input.runId, prompt);
    } catch (error) {
      this.log(`run ${input.runId}: lease or history not saved: ${String(error)}`);
    }
    void this.produce(run, input);
    return result;
  }

  /**
   * Cancels a run (idempotent): it ends with `RUN_FINISHED outcome:{type:"cancelled"}`.
   * A run that already ended is left as it is.
   */
  async cancel(runId: string): Promise<void> {
    if (this.cancelLocal(runId)) return;
    const record = await this.store.getRun(runId);
    if (record?.status !== 'running') return;
    if (this.store.requestCancel) {
      await this.store.requestCancel(runId);
      return;
    }
    // A single-instance store and no local producer: nobody runs it; end it cancelled here.
    await this.endStored(record, cancelledEvent(record.threadId, runId));
  }

  /** Resolves when a run this instance produces has stored its terminal event. */
  async waitForRun(runId: string): Promise<void> {
    await this.active.get(runId)?.done;
  }

  /** The `GET /runs/:id` body. */
  async snapshot(record: RunRecord): Promise<RunSnapshot> {
    const local = this.active.get(record.runId);
    if (local) return snapshotOf(local.state);
    const fresh = (await this.store.getRun(record.runId)) ?? record;
    if (fresh.snapshot) return fresh.snapshot;
    // Running elsewhere (shared store): fold what is stored.
    let state = createRunState({ runId: fresh.runId, threadId: fresh.threadId });
    for (;;) {
      const events = await this.store.readEvents(fresh.runId, state.offset, 1000);
      if (events.length === 0) break;
      state = applyEnvelopes(state, events.map(toEnvelope)).state;
    }
    return snapshotOf(state);
  }

  /**
   * Opens an event stream after `after`: `204` when the run is over and nothing follows,
   * `409 offset_ahead` / `410 offset_expired` as protocol.md says, else a stream.
   */
  async openStream(record: RunRecord, after: number): Promise<StreamOpen> {
    const local = this.active.get(record.runId);
    const current = local ? local.hub.lastPublished : record.lastOffset;
    const lastOffset = Math.max(current, record.lastOffset);
    if (after > lastOffset) {
      return {
        kind: 'error',
        error: new ResumableError(
          'offset_ahead',
          `after=${after} is beyond the run's last offset ${lastOffset}`,
        ),
      };
    }
    // Ended per the store record, even while its producer is still wrapping up here (the
    // terminal event is stored before the run leaves `active`): then 204, not an empty 200.
    const ended = record.status !== 'running';
    if (ended && after >= record.lastOffset) return { kind: 'no-content' };
    if (ended && record.eventsPruned) {
      return {
        kind: 'error',
        error: new ResumableError(
          'offset_expired',
          `the events of run ${record.runId} are no longer retained; fetch GET /runs/${record.runId} and continue from its lastOffset ${record.lastOffset}`,
        ),
      };
    }
    const open = this.subscriberCount(record.runId);
    if (open >= this.limits.maxSubscribersPerRun) {
      return {
        kind: 'error',
        error: new ResumableError(
          'too_many_requests',
          `run ${record.runId} has ${open} open streams, the limit`,
          { retryAfter: 1 },
        ),
      };
    }
    const hub = ended ? null : (local?.hub ?? this.remoteHub(record));
    const subscription = new Subscription({
      store: this.store,
      runId: record.runId,
      after,
      hub,
      terminalOffset: ended ? record.lastOffset : null,
      bufferEvents: this.limits.subscriberBufferEvents,
      pollMs: this.pollMs,
      onClose: (sub) => this.onSubscriptionClosed(sub),
    });
    this.subscriptions.add(subscription);
    this.subscribersByRun.set(record.runId, open + 1);
    return { kind: 'stream', subscription };
  }

  /**
   * Closes open event streams from the server side without touching the runs: each body
   * ends before a terminal event, so clients resume. Returns how many were closed.
   */
  dropConnections(runId?: string): number {
    let closed = 0;
    for (const sub of [...this.subscriptions]) {
      if (runId !== undefined && sub.runId !== runId) continue;
      sub.close(true);
      closed++;
    }
    return closed;
  }

  /**
   * Shuts down: open streams close (clients resume elsewhere or later), runs in progress
   * end with `RUN_ERROR code:"agent_lost"`, and the store is left consistent. The store
   * itself is not closed here (its owner closes it).
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.shutdown.abort();
    for (const timer of this.timers) clearInterval(timer);
    for (const cleanup of this.cleanups) cleanup();
    this.dropConnections();
    for (const hub of this.hubs.values()) hub.stopTail?.();
    const runs = [...this.active.values()];
    for (const run of runs) {
      if (!run.terminalQueued) {
        this.queueTerminal(run, {
          type: EventType.RUN_ERROR,
          message: 'the server shut down while the run was in progress',
          code: 'agent_lost',
        });
      }
      run.abort.abort();
    }
    await Promise.all(runs.map((run) => run.done));
  }

  // ---- producing ---------------------------------------------------------------------

  private async produce(run: ActiveRun, input: RunAgentInput): Promise<void> {
    const { runId, threadId } = run.record;
    let started = false;
    const startEvent = (): AGUIEvent => ({ type: EventType.RUN_STARTED, threadId, runId });
    try {
      const iterator = this.agent(input, { signal: run.abort.signal })[Symbol.asyncIterator]();
      // Cancel must not wait for an agent that ignores its signal: race every step.
      const aborted = new Promise<typeof ABORTED>((resolve) => {
        if (run.abort.signal.aborted) resolve(ABORTED);
        run.abort.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
      });
      let next = iterator.next();
      // Give the agent a moment to send its own RUN_STARTED (with its metadata); if it is
      // slow to say anything (a model thinking), announce the run now so clients see it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const early = await Promise.race([
        next,
        aborted,
        new Promise<typeof SLOW_START>((resolve) => {
          timer = setTimeout(() => resolve(SLOW_START), START_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      if (early === SLOW_START) {
        await this.queue(run, startEvent());
        started = true;
      }
      for (let first = true; ; first = false) {
        if (!first) next = iterator.next();
        const step = await Promise.race([next, aborted]);
        if (step === ABORTED || run.terminalQueued) {
          void iterator.return?.()?.catch(() => {});
          break;
        }
        if (step.done) break;
        const raw = step.value;
        const checked = checkEvent(raw);
        if (checked instanceof ResumableError) {
          this.log(`run ${runId}: dropped an event the agent sent: ${checked.message}`);
          continue;
        }
        let event = checked;
        if (event.type === EventType.RUN_STARTED) {
          if (started) continue;
          event = { ...event, threadId, runId };
        } else if (!started) {
          await this.queue(run, startEvent());
        }
        started = true;
        if (isTerminalEvent(event)) {
          if (event.type === EventType.RUN_FINISHED) event = { ...event, threadId, runId };
          this.queueTerminal(run, event);
          void iterator.return?.()?.catch(() => {});
          break;
        }
        await this.queue(run, event);
      }
      if (!run.terminalQueued) {
        this.queueTerminal(
          run,
          run.cancelRequested
            ? cancelledEvent(threadId, runId)
            : {
                type: EventType.RUN_FINISHED,
                threadId,
                runId,
                outcome: { type: 'success' },
              },
        );
      }
    } catch (error) {
      if (!run.terminalQueued) {
        this.queueTerminal(
          run,
          run.cancelRequested ? cancelledEvent(threadId, runId) : errorEvent(error),
        );
      }
    }
    run.abort.abort();
    await this.flush(run);
    await run.flushing;
    this.active.delete(runId);
    if (this.hubs.get(runId) === run.hub) this.hubs.delete(runId);
    if (!run.hub.closed) run.hub.shut();
    if (this.store.releaseLease) {
      await this.store.releaseLease(runId, this.instanceId).catch(() => {});
    }
    run.resolveDone();
  }

  /** Queues an event; waits when the store has fallen far behind (backpressure). */
  private async queue(run: ActiveRun, event: AGUIEvent): Promise<void> {
    if (run.terminalQueued || run.failed) return;
    this.queueRaw(run, event);
    while (run.pending.length >= MAX_PENDING && !run.failed) await this.flush(run);
  }

  private queueRaw(run: ActiveRun, event: AGUIEvent): void {
    if (event.type === EventType.RUN_STARTED) run.startQueued = true;
    run.pending.push({ offset: run.nextOffset++, event, json: JSON.stringify(event) });
    // Flush on the next turn of the event loop, not now: everything a fast agent yields in
    // the meantime goes in the same append (one transaction, one fan-out write) instead
    // of one each. A synchronous store would otherwise commit event by event.
    if (run.flushScheduled) return;
    run.flushScheduled = true;
    setImmediate(() => {
      run.flushScheduled = false;
      void this.flush(run);
    });
  }

  private queueTerminal(run: ActiveRun, event: AGUIEvent): void {
    if (run.terminalQueued || run.failed) return;
    // A run cancelled or shut down before the agent said anything still starts its log
    // with RUN_STARTED.
    if (!run.startQueued) {
      this.queueRaw(run, {
        type: EventType.RUN_STARTED,
        threadId: run.record.threadId,
        runId: run.record.runId,
      });
    }
    run.terminalQueued = true;
    this.queueRaw(run, event);
  }

  private cancelLocal(runId: string): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    if (!run.terminalQueued) {
      run.cancelRequested = true;
      // End the log now rather than when the agent notices: cancel is immediate.
      this.queueTerminal(run, cancelledEvent(run.record.threadId, runId));
      run.abort.abort();
    }
    return true;
  }

  /**
   * Group commit: everything queued while an append is in flight goes in the next one,
   * so a fast agent costs one store round trip per batch, not per event.
   */
  private flush(run: ActiveRun): Promise<void> {
    if (run.flushing) return run.flushing;
    if (run.pending.length === 0 || run.failed) return Promise.resolve();
    run.flushing = (async () => {
      try {
        while (run.pending.length > 0 && !run.failed) {
          const batch = run.pending.splice(0, run.pending.length);
          await this.commit(run, batch);
        }
      } finally {
        run.flushing = null;
      }
    })();
    return run.flushing;
  }

  private async commit(run: ActiveRun, batch: PendingEvent[]): Promise<void> {
    const last = batch[batch.length - 1]!;
    const terminal = isTerminalEvent(last.event);
    const { state } = applyEnvelopes(run.state, batch);
    const stored: StoredEvent[] = batch.map((e) => ({ offset: e.offset, json: e.json }));
    const end: RunEnd | undefined = terminal
      ? { status: statusOf(last.event), endedAt: Date.now(), snapshot: snapshotOf(state) }
      : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.append(run.record.runId, stored, end);
        break;
      } catch (error) {
        const delay = APPEND_RETRIES_MS[attempt];
        if (error instanceof AppendConflictError || delay === undefined) {
          this.failRun(run, error);
          return;
        }
        await sleep(delay);
      }
    }
    run.state = state;
    run.hub.publish(stored, terminal);
    if (end) {
      const messages = end.snapshot.messages.map(stripRunFields);
      await this.store
        .putMessages(run.record.threadId, run.record.runId, messages)
        .catch((error) => this.log(`run ${run.record.runId}: history not saved: ${error}`));
    }
  }

  /**
   * The store refused or failed: stop producing; open streams fall back to reading the
   * store. A conflict means another writer owns the log now. A failing store gets the
   * `agent_lost` end retried until it lands: left `running`, the run would keep its
   * subscribers polling until a restart (a single-instance store has no orphan sweep).
   */
  private failRun(run: ActiveRun, error: unknown): void {
    this.log(`run ${run.record.runId}: could not store events, stopping it: ${String(error)}`);
    run.failed = true;
    run.terminalQueued = true;
    run.pending = [];
    run.abort.abort();
    run.hub.shut();
    if (!(error instanceof AppendConflictError)) void this.endAfterStoreFailure(run.record);
  }

  /** Appends `RUN_ERROR agent_lost` with backoff until it is stored or the run ended otherwise. */
  private async endAfterStoreFailure(record: RunRecord): Promise<void> {
    const lost = lostEvent('the server could not store the events of this run');
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        await this.endStored(record, lost);
        return;
      } catch (error) {
        const delay = LOST_END_RETRIES_MS[Math.min(attempt, LOST_END_RETRIES_MS.length - 1)]!;
        this.log(`run ${record.runId}: ending it failed, retrying in ${delay} ms: ${error}`);
        await sleep(delay, this.shutdown.signal);
      }
    }
  }

  // ---- orphans, leases, retention ------------------------------------------------------

  private async endOrphans(): Promise<void> {
    let orphans: RunRecord[];
    try {
      orphans = await this.store.findOrphanedRuns();
    } catch (error) {
      this.log(`orphan sweep failed: ${String(error)}`);
      return;
    }
    for (const record of orphans) {
      if (this.active.has(record.runId)) continue;
      await this.endStored(
        record,
        lostEvent('the server running this run stopped before it finished'),
      );
    }
  }

  /**
   * Ends a run nobody here produces with `terminal` (`RUN_ERROR agent_lost`, or the
   * cancelled `RUN_FINISHED`) at `lastOffset + 1`; a conflict means someone else ended it.
   */
  private async endStored(record: RunRecord, terminal: AGUIEvent): Promise<void> {
    let state = createRunState({ runId: record.runId, threadId: record.threadId });
    for (;;) {
      const events = await this.store.readEvents(record.runId, state.offset, 1000);
      if (events.length === 0) break;
      state = applyEnvelopes(state, events.map(toEnvelope)).state;
    }
    const events: PendingEvent[] = [];
    let offset = state.offset;
    if (offset === 0) {
      const started: AGUIEvent = {
        type: EventType.RUN_STARTED,
        threadId: record.threadId,
        runId: record.runId,
      };
      events.push({ offset: ++offset, event: started, json: JSON.stringify(started) });
    }
    events.push({ offset: ++offset, event: terminal, json: JSON.stringify(terminal) });
    const final = applyEnvelopes(state, events).state;
    const stored = events.map((e) => ({ offset: e.offset, json: e.json }));
    try {
      await this.store.append(record.runId, stored, {
        status: statusOf(terminal),
        endedAt: Date.now(),
        snapshot: snapshotOf(final),
      });
    } catch (error) {
      if (error instanceof AppendConflictError) return;
      throw error;
    }
    this.hubs.get(record.runId)?.publish(stored, true);
    await this.store
      .putMessages(record.threadId, record.runId, final.messages.map(stripRunFields))
      .catch(() => {});
  }

  private async renewLeases(): Promise<void> {
    for (const runId of this.active.keys()) {
      await this.store.renewLease?.(runId, this.instanceId, this.leaseMs).catch(() => false);
    }
  }

  /** Deletes events past retention now (also runs at start-up and every 10 minutes). */
  async pruneExpiredEvents(): Promise<void> {
    try {
      await this.store.pruneEvents(Date.now() - this.retentionMs);
    } catch (error) {
      this.log(`retention sweep failed: ${String(error)}`);
    }
  }

  // ---- fan-out -------------------------------------------------------------------------

  /** A hub fed by the store's cross-instance tail, or none (subscribers then poll). */
  private remoteHub(record: RunRecord): Hub | null {
    const existing = this.hubs.get(record.runId);
    if (existing && !existing.closed) return existing;
    if (!this.store.subscribe) return null;
    const hub = new Hub(record.runId, record.lastOffset, this.coalesceMs);
    hub.stopTail = this.store.subscribe(
      record.runId,
      record.lastOffset,
      (events) => {
        const last = events[events.length - 1];
        const terminal = last !== undefined && isTerminalJson(last.json);
        hub.publish(events, terminal);
        if (terminal) this.releaseHub(hub);
      },
      (error) => {
        this.log(`live tail of run ${record.runId} failed: ${String(error)}`);
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
    if (this.hubs.get(hub.runId) === hub && !this.active.has(hub.runId)) {
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

  private heartbeat(): void {
    const now = Date.now();
    // Ticks come every H/3: a stream idle for H/2 is pinged within 5H/6 of its last write,
    // leaving H/6 for a late timer before the protocol's "at least every H" is broken.
    const idle = Math.floor(this.heartbeatMs / 2);
    for (const sub of this.subscriptions) sub.ping(now, idle);
  }
}

function toEnvelope(event: StoredEvent): Envelope {
  return { offset: event.offset, event: JSON.parse(event.json) as AGUIEvent };
}

/** Whether a stored event's JSON is a terminal event; most are not, and skip the parse. */
export function isTerminalJson(json: string): boolean {
  if (!json.includes('"RUN_FINISHED"') && !json.includes('"RUN_ERROR"')) return false;
  try {
    return isTerminalEvent(JSON.parse(json) as { type: string });
  } catch {
    return false;
  }
}

function lostEvent(message: string): AGUIEvent {
  return { type: EventType.RUN_ERROR, message, code: 'agent_lost' };
}

function cancelledEvent(threadId: string, runId: string): AGUIEvent {
  return { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' } };
}

function errorEvent(error: unknown): AGUIEvent {
  const code = error instanceof ResumableError ? error.code : 'agent_failed';
  const message = error instanceof Error ? error.message : String(error);
  return { type: EventType.RUN_ERROR, message: message || 'the agent failed', code };
}

function statusOf(event: AGUIEvent): RunEnd['status'] {
  if (event.type === EventType.RUN_ERROR) return 'error';
  const outcome = (event as { outcome?: { type?: string } }).outcome;
  return outcome?.type === 'cancelled' ? 'cancelled' : 'finished';
}

/** History keeps AG-UI messages; the fold's `streaming` / `ended` flags are run-local. */
function stripRunFields(message: Message): Message {
  const {
    streaming: _s,
    ended: _e,
    ...rest
  } = message as Message & {
    streaming?: unknown;
    ended?: unknown;
  };
  return rest as Message;
}
