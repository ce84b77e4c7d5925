import { ResumableError } from '@resumable/protocol';
import { overAddressLimit } from '../client-address.js';
import { RateWindow, tooMany } from '../rate-window.js';
import type { EventStore } from '../stores/types.js';

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

export const DEFAULT_CLIENT_LIMITS: ClientLimits = {
  maxRunningRunsPerThread: 1,
  maxRunsPerMinutePerThread: 60,
  maxRunsPerMinutePerAddress: 300,
  maxRunningRunsPerAddress: 50,
  maxPromptBytesPerMinutePerAddress: 16 * 1024 * 1024,
  maxThreadMessages: 10_000,
};

export interface AdmissionOptions extends ClientLimits {
  maxConcurrentRuns: number;
  store: EventStore;
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

/** A held admission: `release` once the run ends (or failed to start). */
export interface Ticket {
  release(): void;
}

/**
 * Who may start a run now: the instance's run slots, one running run per thread, and the
 * per-client rates. Everything is checked and reserved before the first await, so
 * concurrent POSTs cannot overshoot a limit; runs on other instances (a shared store) are
 * seen through the store's list of the thread's runs.
 */
export class Admission {
  private busy = 0;
  /** Runs admitted here and not ended, per thread and per address. */
  private readonly byThread = new Map<string, Set<string>>();
  private readonly byAddress = new Map<string, number>();
  private readonly threadRate: RateWindow;
  private readonly addressRate: RateWindow;
  private readonly addressBytes: RateWindow;

  constructor(private readonly options: AdmissionOptions) {
    this.threadRate = new RateWindow(options.maxRunsPerMinutePerThread, 60_000);
    this.addressRate = new RateWindow(options.maxRunsPerMinutePerAddress, 60_000);
    this.addressBytes = new RateWindow(options.maxPromptBytesPerMinutePerAddress, 60_000);
  }

  /** The error to answer when this instance is at its run limit, else null. */
  full(): ResumableError | null {
    if (this.busy < this.options.maxConcurrentRuns) return null;
    return tooMany(`this server is producing ${this.busy} runs, its limit`, 1);
  }

  /** Admits `who` or throws the answer (`429`, `409 run_in_progress`). */
  async admit(who: Applicant): Promise<Ticket> {
    const ticket = this.reserve(who);
    try {
      if (who.threadExists) await this.checkStoredRuns(who);
    } catch (error) {
      ticket.release();
      throw error;
    }
    return ticket;
  }

  /**
   * The answer refusing `who` now by this instance's counts, or null; records nothing.
   * Asked before a new thread is stored too, so a refused POST leaves no thread behind.
   */
  refusal(who: Applicant, now = Date.now()): ResumableError | null {
    const full = this.full();
    if (full) return full;
    const o = this.options;
    const running = this.byThread.get(who.threadId);
    if (running && running.size >= o.maxRunningRunsPerThread) {
      return runInProgress(who.threadId, [...running][0]!);
    }
    const threadWait = this.threadRate.retryAfter(who.threadId, now);
    if (threadWait > 0) {
      return tooMany(
        `thread ${who.threadId} started ${o.maxRunsPerMinutePerThread} runs in the last minute, its limit`,
        threadWait,
      );
    }
    const { address } = who;
    if (address === null) return null;
    const wait = this.addressRate.retryAfter(address, now);
    if (wait > 0) {
      const started = `started ${o.maxRunsPerMinutePerAddress} runs in the last minute`;
      return tooMany(overAddressLimit(address, started), wait);
    }
    const bytesWait = this.addressBytes.retryAfter(address, now, who.bytes);
    if (bytesWait > 0) {
      const sent = `sent ${o.maxPromptBytesPerMinutePerAddress} bytes of prompts in the last minute`;
      return tooMany(overAddressLimit(address, sent), bytesWait);
    }
    const count = this.byAddress.get(address) ?? 0;
    if (count >= o.maxRunningRunsPerAddress) {
      const running = `${count} runs running`;
      return tooMany(overAddressLimit(address, `has ${running}`, `have ${running}`), 1);
    }
    return null;
  }

  /**
   * An empty thread (`POST /threads`) counts as a run start against the client's
   * per-minute rate: creating threads is no cheaper a way to fill the store. Throws `429`.
   */
  admitThread(address: string): void {
    const now = Date.now();
    const wait = this.addressRate.retryAfter(address, now);
    if (wait > 0) {
      const started = `started ${this.options.maxRunsPerMinutePerAddress} runs or threads in the last minute`;
      throw tooMany(overAddressLimit(address, started), wait);
    }
    this.addressRate.record(address, now);
  }

  private reserve(who: Applicant): Ticket {
    const now = Date.now();
    const refused = this.refusal(who, now);
    if (refused) throw refused;
    const running = this.byThread.get(who.threadId);
    const { address } = who;
    if (address !== null) {
      this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
      this.addressRate.record(address, now);
      this.addressBytes.record(address, now, who.bytes);
    }
    this.threadRate.record(who.threadId, now);
    const runs = running ?? new Set<string>();
    runs.add(who.runId);
    this.byThread.set(who.threadId, runs);
    this.busy++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.busy--;
        runs.delete(who.runId);
        if (runs.size === 0) this.byThread.delete(who.threadId);
        if (address !== null) {
          const left = (this.byAddress.get(address) ?? 1) - 1;
          if (left > 0) this.byAddress.set(address, left);
          else this.byAddress.delete(address);
        }
      },
    };
  }

  /**
   * Runs of the thread running on any instance (the store knows them all). A full
   * history is refused where the run reads it whole anyway (`planBranch`).
   */
  private async checkStoredRuns(who: Applicant): Promise<void> {
    const { store } = this.options;
    const max = this.options.maxRunningRunsPerThread;
    const newest = await store.listRuns(who.threadId, max);
    const running = newest.filter((run) => run.status === 'running' && run.runId !== who.runId);
    if (running.length >= max) throw runInProgress(who.threadId, running[0]!.runId);
  }
}

/** `409 run_in_progress`; its body names the running run (`error.runId`). */
export function runInProgress(threadId: string, runId: string): ResumableError {
  const error = new ResumableError(
    'run_in_progress',
    `thread ${threadId} has a run in progress (${runId}); start the next one when it ends`,
  );
  return Object.assign(error, { runId });
}
