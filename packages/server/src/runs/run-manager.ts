import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError, type RunSnapshot, snapshotOf } from '@resumable/protocol';
import type { Agent } from '../agents/types.js';
import { MAX_TREE_MESSAGES } from '../branches/history.js';
import { DEFAULTS, HOUR_MS, PRUNE_EVERY_MS } from '../defaults.js';
import { isTerminalJson } from '../stores/stored-events.js';
import type { EventStore, RunRecord } from '../stores/types.js';
import { FanOut, type StreamOpen } from '../streams/fan-out.js';
import { type StreamCounts, ThreadEvents } from '../threads/thread-events.js';
import { Admission } from './admission.js';
import { cancelledEvent, foldStoredRun, lostEvent } from './events.js';
import { startHousekeeping } from './housekeeping.js';
import {
  definedOnly,
  type RunLimits,
  type RunManagerOptions,
  type StartingClient,
} from './options.js';
import type { ActiveRun } from './producer.js';
import { Recovery } from './recovery.js';
import { createAndStart, type RunStartParts } from './start.js';
import { ThreadGuard } from './thread-guard.js';

export {
  isTerminalJson,
  type RunLimits,
  type RunManagerOptions,
  type StartingClient,
  type StreamCounts,
  type StreamOpen,
};

/**
 * Runs agents detached from any request: admits runs, produces each one (offsets, group
 * commit, one terminal event), fans out to live subscribers, and ends runs whose producer
 * died with `RUN_ERROR code:"agent_lost"`. Each of those jobs is a module of `runs/`.
 */
export class RunManager {
  /** The store runs are kept in (`RunManagerOptions.store`). */
  readonly store: EventStore;
  /** This instance's id: the `owner` of the runs it produces. */
  readonly instanceId: string;
  /** Every run limit in force: the options' over `DEFAULTS.limits`. */
  readonly limits: RunLimits;
  /** Longest silence on a live stream, in milliseconds (`RunManagerOptions.heartbeatMs`). */
  readonly heartbeatMs: number;
  /** Largest run request as JSON (`RunManagerOptions.maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** Uploaded files, for the checks of prompts that name them. */
  readonly files: RunManagerOptions['files'];
  private readonly agent: Agent;
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private readonly orphanSweepMs: number;
  /** Where warnings go (`RunManagerOptions.log`). */
  readonly log: (message: string) => void;
  private readonly active = new Map<string, ActiveRun>();
  /** Runs being created (admitted, not yet stored): a racing duplicate waits for them. */
  private readonly creating = new Map<string, Promise<RunRecord | null>>();
  private readonly admission: Admission;
  /**
   * Run starts and thread deletions of one thread, kept apart.
   * @internal
   */
  readonly threadGuard: ThreadGuard;
  private readonly fanOut: FanOut;
  private readonly recovery: Recovery;
  /**
   * Thread event streams and the announcements on them (protocol.md).
   * @internal
   */
  readonly threads: ThreadEvents;
  /** What `createAndStart` (runs/start.ts) uses of this manager. */
  private readonly parts: RunStartParts;
  private readonly cleanups: Array<() => void> = [];
  private closing = false;
  /** Aborted by `close()`: ends the waits of background retries. */
  private readonly shutdown = new AbortController();

  /**
   * Made by `createResumableApp`; an application uses that one (`ResumableApp.manager`).
   * Throws a `RangeError` for `limits.maxRunMs` or `limits.maxThreadMessages` out of range.
   * Nothing runs until `init()`.
   */
  constructor(options: RunManagerOptions) {
    this.store = options.store;
    this.agent = options.agent;
    this.limits = { ...DEFAULTS.limits, ...definedOnly(options.limits ?? {}) };
    if (!(this.limits.maxRunMs > 0 && this.limits.maxRunMs <= 2 ** 31 - 1)) {
      throw new RangeError('limits.maxRunMs must be from 1 to 2147483647');
    }
    // The branch tree is read whole (branches/history.ts): its bound is this limit's.
    if (
      !(this.limits.maxThreadMessages >= 1 && this.limits.maxThreadMessages <= MAX_TREE_MESSAGES)
    ) {
      throw new RangeError(`limits.maxThreadMessages must be from 1 to ${MAX_TREE_MESSAGES}`);
    }
    this.heartbeatMs = options.heartbeatMs ?? DEFAULTS.heartbeatMs;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULTS.limits.maxBodyBytes;
    this.files = options.files;
    this.retentionMs = (options.retentionHours ?? DEFAULTS.retention.eventsHours) * HOUR_MS;
    this.instanceId = options.instanceId ?? crypto.randomUUID();
    this.leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
    this.orphanSweepMs = options.orphanSweepMs ?? DEFAULTS.orphanSweepMs;
    this.log = options.log ?? ((message) => console.warn(`[resumable] ${message}`));
    this.admission = new Admission({ ...this.limits, store: this.store, holdMs: this.leaseMs });
    this.threadGuard = new ThreadGuard(this.store);
    this.fanOut = new FanOut({
      store: this.store,
      maxSubscribersPerRun: this.limits.maxSubscribersPerRun,
      subscriberBufferEvents: this.limits.subscriberBufferEvents,
      pollMs: options.pollMs ?? DEFAULTS.pollMs,
      coalesceMs: options.fanoutCoalesceMs ?? DEFAULTS.fanoutCoalesceMs,
      log: this.log,
      localHub: (runId) => this.active.get(runId)?.hub ?? null,
    });
    this.recovery = new Recovery({
      store: this.store,
      log: this.log,
      shutdown: this.shutdown.signal,
      isActive: (runId) => this.active.has(runId),
      hub: (runId) => this.fanOut.hub(runId),
      onEnded: (state) => this.threads.runEnded(snapshotOf(state)),
    });
    this.threads = new ThreadEvents({
      store: this.store,
      keep: options.threadEventsKept ?? DEFAULTS.retention.threadEvents,
      outageMs: this.limits.storeOutageMs,
      maxSubscribersPerThread: this.limits.maxSubscribersPerRun,
      subscriberBufferEvents: this.limits.subscriberBufferEvents,
      pollMs: options.pollMs ?? DEFAULTS.pollMs,
      warn: this.log,
    });
    this.parts = {
      store: this.store,
      agent: this.agent,
      instanceId: this.instanceId,
      limits: this.limits,
      leaseMs: this.leaseMs,
      log: this.log,
      files: options.files,
      shutdown: this.shutdown.signal,
      active: this.active,
      admission: this.admission,
      fanOut: this.fanOut,
      recovery: this.recovery,
      threads: this.threads,
    };
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
        pruneEveryMs: PRUNE_EVERY_MS,
        // Ticks come every H/3: a stream idle for H/2 is pinged within 5H/6 of its last
        // write, leaving H/6 for a late timer before "at least every H" is broken.
        heartbeat: () => {
          this.fanOut.ping(Date.now(), Math.floor(this.heartbeatMs / 2));
          this.threads.streams.ping(Date.now(), Math.floor(this.heartbeatMs / 2));
        },
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

  /** Event streams open now and opened since start: of runs, and of threads. */
  streamCounts(): StreamCounts {
    const { streams } = this.threads;
    return {
      run: { open: this.fanOut.subscriberCount(), opened: this.fanOut.opened },
      thread: { open: streams.count(), opened: streams.opened },
    };
  }

  /**
   * Adds `{type:"CUSTOM", name, value}` to the thread's event stream, for changes that are
   * not runs (`resumable.history_changed`: a rename, a branch switch). Never throws for the
   * store: resolves the event's offset once stored, or null when it was dropped.
   */
  announce(threadId: string, name: string, value: unknown): Promise<number | null> {
    return this.threads.announce(threadId, name, value);
  }

  /**
   * Refuses, before anything is stored, a run the agent could not finish within this
   * server's limits (the agent's own `validate`): a `400` instead of a `201` that fails.
   * Throws `ResumableError('bad_request')` when the input holds more prompt messages than
   * `limits.maxThreadMessages`, and whatever the agent's `validate` throws.
   */
  validate(input: RunAgentInput): void {
    // A new thread's history is the request's prompt messages: refused before it exists.
    const ids = new Set<string>();
    for (const m of input.messages) if (m.role !== 'assistant' && m.role !== 'tool') ids.add(m.id);
    if (ids.size > this.limits.maxThreadMessages) {
      throw new ResumableError(
        'bad_request',
        `messages holds ${ids.size} prompt messages, over the limit of ${this.limits.maxThreadMessages} a thread's history may hold`,
      );
    }
    this.agent.validate?.(input, {
      maxRunMs: this.limits.maxRunMs,
      maxEventsPerRun: this.limits.maxEventsPerRun,
    });
  }

  /**
   * Throws the answer (`429`, `409`) this instance would give `startRun` now; stores nothing.
   * @internal
   */
  async checkAdmission(input: RunAgentInput, client: StartingClient): Promise<void> {
    const refused = await this.admission.refusal({
      runId: input.runId,
      threadId: input.threadId,
      ...client,
    });
    if (refused) throw refused;
  }

  /**
   * Counts a new empty thread (`POST /threads`) against client `address`'s runs-per-minute
   * rate, or throws `ResumableError('too_many_requests')` (`429`, with `retryAfter`).
   */
  admitThread(address: string): Promise<void> {
    return this.admission.admitThread(address);
  }

  /**
   * Starts a run for a thread that already exists (the HTTP layer creates threads).
   * Idempotent by `input.runId`: when the run exists, nothing starts and `created` is false.
   * An application starts one with `startServerRun`, which checks the request first.
   * @internal
   */
  async startRun(
    input: RunAgentInput,
    client: StartingClient = { address: null, threadExists: true, bytes: 0 },
    parentMessageId?: string | null,
  ): Promise<{ created: boolean; run: RunRecord }> {
    if (this.closing) throw new ResumableError('store_unavailable', 'the server is shutting down');
    const twin = this.creating.get(input.runId);
    if (twin || this.active.has(input.runId)) {
      const run = (await twin) ?? (await this.store.getRun(input.runId));
      if (run) return { created: false, run };
    }
    // An existing run is found by `createRun` (atomic), so the usual path reads no record
    // first; at the limit, a retry of a run that exists is still answered.
    const full = this.admission.full();
    if (full) {
      const existing = await this.store.getRun(input.runId);
      if (existing) return { created: false, run: existing };
      throw full;
    }
    const creating = this.threadGuard.start(
      input.threadId,
      (thread) => createAndStart(this.parts, input, { ...client, thread }, parentMessageId),
      client.thread,
    );
    this.creating.set(
      input.runId,
      creating.then(
        (result) => result.run,
        () => null,
      ),
    );
    try {
      return await creating;
    } finally {
      this.creating.delete(input.runId);
    }
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
   * @internal
   */
  async openStream(record: RunRecord, after: number): Promise<StreamOpen> {
    return this.fanOut.open(record, after);
  }

  /**
   * Closes open event streams from the server side without touching the runs: each body
   * ends before a terminal event, so clients resume. Returns how many were closed.
   */
  dropConnections(runId?: string): number {
    const threads = runId === undefined ? this.threads.streams.drop() : 0;
    return this.fanOut.drop(runId) + threads;
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
    // The runs' `run_ended` announcements get a moment to land before the store closes.
    await this.threads.close(2000);
  }

  /**
   * Deletes events past retention and uploads no prompt named in time, now (also at
   * start-up and every 10 minutes).
   */
  async pruneExpiredEvents(now = Date.now()): Promise<void> {
    try {
      await this.store.pruneEvents(now - this.retentionMs);
    } catch (error) {
      this.log(`retention sweep failed: ${String(error)}`);
    }
    const files = this.files;
    const sweep = files?.store.sweepUnreferenced?.bind(files.store);
    if (!files || !sweep) return;
    const before = now - (files.unreferencedMs ?? DEFAULTS.files.unreferencedHours * HOUR_MS);
    try {
      // Bounded: 100 batches of 100 per sweep; the next sweep goes on.
      for (let round = 0; round < 100; round++) {
        if ((await sweep(before, 100)) < 100) break;
      }
    } catch (error) {
      this.log(`sweep of unreferenced uploads failed: ${String(error)}`);
    }
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
    // The clients' running-runs holds of these runs, in a shared store, lapse with them.
    await this.admission.renewHolds();
  }
}
