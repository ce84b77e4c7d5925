import type { ResumableError } from '@resumable/protocol';
import { overAddressLimit } from '../client-address.js';
import { LocalCounters } from '../local-counters.js';
import { tooMany } from '../rate-window.js';
import type { EventStore, QuotaHold, RateTake, SharedCounters } from '../stores/types.js';
import { runInProgress } from '../stores/types.js';

/** Per-client limits on starting runs (`POST /runs`). */
export interface ClientLimits {
  /**
   * Runs of one thread running at once; another `POST /runs` on it answers
   * `409 run_in_progress` naming the running run.
   * @default 1
   */
  maxRunningRunsPerThread: number;
  /**
   * Runs started per minute on one thread (one thread token); more answer `429`
   * with `Retry-After`.
   * @default 60
   */
  maxRunsPerMinutePerThread: number;
  /**
   * Runs started per minute from one client address; more answer `429` with `Retry-After`.
   * @default 300
   */
  maxRunsPerMinutePerAddress: number;
  /**
   * Runs from one client address running at once on this instance; more answer `429`.
   * Below `maxConcurrentRuns`, so one client cannot take every slot.
   * @default 50
   */
  maxRunningRunsPerAddress: number;
  /**
   * Bytes of `POST /runs` bodies (prompts) one client address may send per minute; more
   * answer `429` with `Retry-After`. Bounds how fast one client can fill the store.
   * @default 16777216 (16 MiB)
   */
  maxPromptBytesPerMinutePerAddress: number;
  /**
   * Messages a thread's history may hold; a `POST /runs` on a thread that has them answers
   * `400 bad_request` (start a new thread). Bounds what one thread token can store, and
   * the history every run reads whole to place itself in the branch tree: at most 20000.
   * @default 10000
   */
  maxThreadMessages: number;
}

export interface AdmissionOptions extends ClientLimits {
  maxConcurrentRuns: number;
  store: EventStore;
  /**
   * How long a run's hold on its client's running-runs quota lasts in a shared store
   * unless renewed (`renewHolds`): an instance that dies frees its clients' slots then.
   */
  holdMs: number;
}

/** Who asks to start a run: the thread (its token) and the client's address key. */
export interface Applicant {
  runId: string;
  threadId: string;
  /** False for a thread this very request creates (nothing can run on it yet). */
  threadExists: boolean;
  /** `StartingClient.address`: null only for a run the server starts itself. */
  address: string | null;
  /** Size of the request body. */
  bytes: number;
}

/**
 * A held admission: `release` once the run ends (or failed to start). It resolves once the
 * client's running-runs hold is given back (in a shared store, a round trip later).
 */
export interface Ticket {
  release(): Promise<void>;
}

/** The quota of runs running at once per client address (`maxRunningRunsPerAddress`). */
const RUNNING = 'running-runs';

/**
 * Who may start a run now: the instance's run slots, one running run per thread, and the
 * per-client rates and quotas. The rate windows and the running-runs quota are the
 * store's `counters` when it has them (Redis: every instance counts one budget), else
 * this instance's own. The run slots (`maxConcurrentRuns`) are this instance's capacity
 * and stay its own. One running run per thread is the store's atomic claim in
 * `createRun`; the checks here answer the usual case early, before anything is read.
 */
export class Admission {
  private busy = 0;
  /** Runs admitted here and not ended, per thread. */
  private readonly byThread = new Map<string, Set<string>>();
  /** The running-runs holds of runs admitted here (renewed while they run). */
  private readonly holds = new Map<string, QuotaHold>();
  private readonly counters: SharedCounters;

  constructor(private readonly options: AdmissionOptions) {
    this.counters = options.store.counters ?? new LocalCounters();
  }

  /** The error to answer when this instance is at its run limit, else null. */
  full(): ResumableError | null {
    if (this.busy < this.options.maxConcurrentRuns) return null;
    return tooMany(`this server is producing ${this.busy} runs, its limit`, 1);
  }

  /** Admits `who` or throws the answer (`429`, `409 run_in_progress`). */
  async admit(who: Applicant): Promise<Ticket> {
    const ticket = await this.reserve(who);
    try {
      if (who.threadExists) await this.checkStoredRuns(who);
    } catch (error) {
      void ticket.release();
      throw error;
    }
    return ticket;
  }

  /**
   * The answer refusing `who` now, or null; records nothing. Asked before a new thread is
   * stored too, so a refused POST leaves no thread behind.
   */
  async refusal(who: Applicant): Promise<ResumableError | null> {
    const local = this.localRefusal(who);
    if (local) return local;
    const windows = this.windows(who);
    const refused = await this.counters.check(windows);
    if (refused) return this.rateError(windows[refused.index]!, refused.retryAfter);
    const { address } = who;
    if (address === null) return null;
    const count = await this.counters.held(RUNNING, address);
    return count >= this.options.maxRunningRunsPerAddress
      ? this.runningError(address, count)
      : null;
  }

  /**
   * An empty thread (`POST /threads`) counts as a run start against the client's
   * per-minute rate: creating threads is no cheaper a way to fill the store. Throws `429`.
   */
  async admitThread(address: string): Promise<void> {
    const window: RateTake = {
      scope: 'address',
      name: 'runs',
      key: address,
      limit: this.options.maxRunsPerMinutePerAddress,
      windowMs: 60_000,
      weight: 1,
    };
    const refused = await this.counters.take([window]);
    if (refused) {
      const started = `started ${this.options.maxRunsPerMinutePerAddress} runs or threads in the last minute`;
      throw tooMany(overAddressLimit(address, started), refused.retryAfter);
    }
  }

  /** Extends the quota holds of the runs admitted here (they still run). */
  async renewHolds(): Promise<void> {
    for (const hold of [...this.holds.values()]) {
      await this.counters.renew(hold).catch(() => {});
    }
  }

  /** The limits this instance answers alone, with no await: its slots and its threads. */
  private localRefusal(who: Applicant): ResumableError | null {
    const full = this.full();
    if (full) return full;
    const running = this.byThread.get(who.threadId);
    if (running && running.size >= this.options.maxRunningRunsPerThread) {
      return runInProgress(who.threadId, [...running][0]!);
    }
    return null;
  }

  /** The windows a run start counts in: its thread's starts, its client's starts and bytes. */
  private windows(who: Applicant): RateTake[] {
    const o = this.options;
    const windows: RateTake[] = [
      {
        scope: 'thread',
        name: 'runs',
        key: who.threadId,
        limit: o.maxRunsPerMinutePerThread,
        windowMs: 60_000,
        weight: 1,
      },
    ];
    if (who.address === null) return windows;
    windows.push(
      {
        scope: 'address',
        name: 'runs',
        key: who.address,
        limit: o.maxRunsPerMinutePerAddress,
        windowMs: 60_000,
        weight: 1,
      },
      {
        scope: 'address',
        name: 'prompt-bytes',
        key: who.address,
        limit: o.maxPromptBytesPerMinutePerAddress,
        windowMs: 60_000,
        weight: who.bytes,
      },
    );
    return windows;
  }

  private rateError(window: RateTake, retryAfter: number): ResumableError {
    const o = this.options;
    if (window.scope === 'thread') {
      return tooMany(
        `thread ${window.key} started ${o.maxRunsPerMinutePerThread} runs in the last minute, its limit`,
        retryAfter,
      );
    }
    const what =
      window.name === 'runs'
        ? `started ${o.maxRunsPerMinutePerAddress} runs in the last minute`
        : `sent ${o.maxPromptBytesPerMinutePerAddress} bytes of prompts in the last minute`;
    return tooMany(overAddressLimit(window.key, what), retryAfter);
  }

  private runningError(address: string, count: number): ResumableError {
    const running = `${count} runs running`;
    return tooMany(overAddressLimit(address, `has ${running}`, `have ${running}`), 1);
  }

  /**
   * Takes a slot here and the thread's place (no await before, so concurrent POSTs on
   * this instance cannot overshoot), then the client's running-runs hold and the rate
   * windows: a refusal by either records nothing.
   */
  private async reserve(who: Applicant): Promise<Ticket> {
    const local = this.localRefusal(who);
    if (local) throw local;
    const runs = this.byThread.get(who.threadId) ?? new Set<string>();
    runs.add(who.runId);
    this.byThread.set(who.threadId, runs);
    this.busy++;
    let hold: QuotaHold | null = null;
    let released = false;
    const ticket: Ticket = {
      release: async () => {
        if (released) return;
        released = true;
        this.busy--;
        runs.delete(who.runId);
        if (runs.size === 0) this.byThread.delete(who.threadId);
        if (hold) {
          this.holds.delete(who.runId);
          // Not given back (the store is away): it lapses with the run's lease.
          await this.counters.release(hold).catch(() => {});
        }
      },
    };
    try {
      const { address } = who;
      if (address !== null) {
        const wanted: QuotaHold = {
          name: RUNNING,
          key: address,
          id: who.runId,
          limit: this.options.maxRunningRunsPerAddress,
          ttlMs: this.options.holdMs,
        };
        const count = await this.counters.hold(wanted);
        if (count !== null) throw this.runningError(address, count);
        hold = wanted;
        this.holds.set(who.runId, wanted);
      }
      const windows = this.windows(who);
      const refused = await this.counters.take(windows);
      if (refused) throw this.rateError(windows[refused.index]!, refused.retryAfter);
    } catch (error) {
      void ticket.release();
      throw error;
    }
    return ticket;
  }

  /**
   * Runs of the thread running on any instance (the store knows them all): the early
   * answer; `createRun`'s claim is the atomic one. A full history is refused where the run
   * reads it whole anyway (`planBranch`).
   */
  private async checkStoredRuns(who: Applicant): Promise<void> {
    const { store } = this.options;
    const max = this.options.maxRunningRunsPerThread;
    const newest = await store.listRuns(who.threadId, max);
    const running = newest.filter((run) => run.status === 'running' && run.runId !== who.runId);
    if (running.length >= max) throw runInProgress(who.threadId, running[0]!.runId);
  }
}
