import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError, type RunSnapshot, snapshotOf } from '@resumable/protocol';
import type { Agent } from './agents/types.js';
import { Admission } from './runs/admission.js';
import { cancelledEvent, foldStoredRun, isTerminalJson, lostEvent } from './runs/events.js';
import { FanOut, type StreamOpen } from './runs/fan-out.js';
import { startHousekeeping } from './runs/housekeeping.js';
import { ActiveRun, produce } from './runs/producer.js';
import { Recovery } from './runs/recovery.js';
import type { EventStore, RunRecord } from './stores/types.js';
import { AppendConflictError } from './stores/types.js';

export { isTerminalJson, type StreamOpen };

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
  /**
   * How often a single-instance store (memory, SQLite) is swept for runs left `running`
   * with no producer (a shared store is swept every third of `leaseMs`).
   * @default 60000
   */
  orphanSweepMs?: number;
  /** Where warnings go. @default console.warn */
  log?: (message: string) => void;
}

/**
 * Runs agents detached from any request: admits runs, produces each one (offsets, group
 * commit, one terminal event), fans out to live subscribers, and ends runs whose producer
 * died with `RUN_ERROR code:"agent_lost"`. Each of those jobs is a module of `runs/`.
 */
export class RunManager {
  readonly store: EventStore;
  readonly instanceId: string;
  readonly limits: RunLimits;
  readonly heartbeatMs: number;
  private readonly agent: Agent;
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private readonly orphanSweepMs: number;
  private readonly log: (message: string) => void;
  private readonly active = new Map<string, ActiveRun>();
  private readonly admission: Admission;
  private readonly fanOut: FanOut;
  private readonly recovery: Recovery;
  private readonly cleanups: Array<() => void> = [];
  private closing = false;
  /** Aborted by `close()`: ends the waits of background retries. */
  private readonly shutdown = new AbortController();

  constructor(options: RunManagerOptions) {
    this.store = options.store;
    this.agent = options.agent;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
    this.retentionMs = (options.retentionHours ?? 168) * 3_600_000;
    this.instanceId = options.instanceId ?? crypto.randomUUID();
    this.leaseMs = options.leaseMs ?? 15_000;
    this.orphanSweepMs = options.orphanSweepMs ?? 60_000;
    this.log = options.log ?? ((message) => console.warn(`[resumable] ${message}`));
    this.admission = new Admission({
      maxConcurrentRuns: this.limits.maxConcurrentRuns,
      activeCount: () => this.active.size,
    });
    this.fanOut = new FanOut({
      store: this.store,
      maxSubscribersPerRun: this.limits.maxSubscribersPerRun,
      subscriberBufferEvents: this.limits.subscriberBufferEvents,
      pollMs: options.pollMs ?? 250,
      coalesceMs: options.fanoutCoalesceMs ?? 15,
      log: this.log,
      localHub: (runId) => this.active.get(runId)?.hub ?? null,
    });
    this.recovery = new Recovery({
      store: this.store,
      log: this.log,
      shutdown: this.shutdown.signal,
      isActive: (runId) => this.active.has(runId),
      hub: (runId) => this.fanOut.hub(runId),
    });
  }

  /** Ends orphaned runs, prunes expired events and starts the housekeeping timers. */
  async init(): Promise<void> {
    await this.recovery.endOrphans();
    await this.pruneExpiredEvents();
    this.cleanups.push(
      startHousekeeping({
        store: this.store,
        heartbeatMs: this.heartbeatMs,
        leaseMs: this.leaseMs,
        orphanSweepMs: this.orphanSweepMs,
        pruneEveryMs: 10 * 60_000,
        // Ticks come every H/3: a stream idle for H/2 is pinged within 5H/6 of its last
        // write, leaving H/6 for a late timer before "at least every H" is broken.
        heartbeat: () => this.fanOut.ping(Date.now(), Math.floor(this.heartbeatMs / 2)),
        pruneExpiredEvents: () => this.pruneExpiredEvents(),
        endOrphans: () => this.recovery.endOrphans(),
        renewLeases: () => this.renewLeases(),
      }),
    );
    if (this.store.onCancelRequest) {
      this.cleanups.push(this.store.onCancelRequest((runId) => this.cancelLocal(runId)));
    }
  }

  /** Runs this instance is producing right now. */
  get activeRunCount(): number {
    return this.active.size;
  }

  /** Open event streams (of one run, or all). */
  subscriberCount(runId?: string): number {
    return this.fanOut.subscriberCount(runId);
  }

  /**
   * Starts a run for a thread that already exists (the HTTP layer creates threads).
   * Idempotent by `input.runId`: when the run exists, nothing starts and `created` is false.
   */
  async startRun(input: RunAgentInput): Promise<{ created: boolean; run: RunRecord }> {
    if (this.closing) throw new ResumableError('store_unavailable', 'the server is shutting down');
    // An existing run is found by `createRun` (atomic), so the usual path reads no record
    // first; at the limit, a retry of a run that exists is still answered.
    const full = this.admission.full();
    if (full) {
      const existing = await this.store.getRun(input.runId);
      if (existing) return { created: false, run: existing };
      throw full;
    }
    this.admission.take();
    let result: { created: boolean; run: RunRecord };
    try {
      result = await this.store.createRun({
        runId: input.runId,
        threadId: input.threadId,
        createdAt: Date.now(),
        owner: this.instanceId,
      });
    } finally {
      this.admission.release();
    }
    if (!result.created) return result;
    // Registered at once: a subscriber arriving now follows it live, not by polling.
    const run = new ActiveRun(result.run, this.fanOut.openLocalHub(input.runId), {
      store: this.store,
      log: this.log,
      // A conflict means another writer owns the log now. A failing store gets the end
      // retried until it lands: left `running`, the run would keep subscribers polling.
      onFailed: (error) => {
        if (error instanceof AppendConflictError) return;
        const lost = lostEvent('the server could not store the events of this run');
        void this.recovery.endWithRetries(result.run, lost);
      },
    });
    this.active.set(input.runId, run);
    try {
      if (this.store.acquireLease) {
        await this.store.acquireLease(input.runId, this.instanceId, this.leaseMs);
      }
      const prompt = input.messages.filter((m) => m.role !== 'assistant' && m.role !== 'tool');
      if (prompt.length > 0) await this.store.putMessages(input.threadId, input.runId, prompt);
    } catch (error) {
      this.log(`run ${input.runId}: lease or history not saved: ${String(error)}`);
    }
    void this.runToEnd(run, input);
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
    await this.recovery.endStored(record, cancelledEvent(record.threadId, runId));
  }

  /** Resolves when a run this instance produces has stored its terminal event. */
  async waitForRun(runId: string): Promise<void> {
    await this.active.get(runId)?.done;
  }

  /** The `GET /runs/:id` body. */
  async snapshot(record: RunRecord): Promise<RunSnapshot> {
    const local = this.active.get(record.runId);
    if (local) return snapshotOf(local.log.state);
    const fresh = (await this.store.getRun(record.runId)) ?? record;
    if (fresh.snapshot) return fresh.snapshot;
    // Running elsewhere (shared store): fold what is stored.
    return snapshotOf(await foldStoredRun(this.store, fresh));
  }

  /**
   * Opens an event stream after `after`: `204` when the run is over and nothing follows,
   * `409 offset_ahead` / `410 offset_expired` as protocol.md says, else a stream.
   */
  async openStream(record: RunRecord, after: number): Promise<StreamOpen> {
    return this.fanOut.open(record, after);
  }

  /**
   * Closes open event streams from the server side without touching the runs: each body
   * ends before a terminal event, so clients resume. Returns how many were closed.
   */
  dropConnections(runId?: string): number {
    return this.fanOut.drop(runId);
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
    for (const cleanup of this.cleanups) cleanup();
    this.fanOut.close();
    const runs = [...this.active.values()];
    for (const run of runs) {
      run.end(lostEvent('the server shut down while the run was in progress'));
    }
    await Promise.all(runs.map((run) => run.done));
  }

  /** Deletes events past retention now (also runs at start-up and every 10 minutes). */
  async pruneExpiredEvents(): Promise<void> {
    try {
      await this.store.pruneEvents(Date.now() - this.retentionMs);
    } catch (error) {
      this.log(`retention sweep failed: ${String(error)}`);
    }
  }

  private async runToEnd(run: ActiveRun, input: RunAgentInput): Promise<void> {
    const { runId } = run.record;
    await produce(run, input, { agent: this.agent, log: this.log });
    this.active.delete(runId);
    this.fanOut.closeLocalHub(run.hub);
    if (this.store.releaseLease) {
      await this.store.releaseLease(runId, this.instanceId).catch(() => {});
    }
    run.markDone();
  }

  private cancelLocal(runId: string): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    if (!run.log.terminalQueued) {
      run.cancelRequested = true;
      // End the log now rather than when the agent notices: cancel is immediate.
      run.end(cancelledEvent(run.record.threadId, runId));
    }
    return true;
  }

  private async renewLeases(): Promise<void> {
    for (const runId of this.active.keys()) {
      await this.store.renewLease?.(runId, this.instanceId, this.leaseMs).catch(() => false);
    }
  }
}
