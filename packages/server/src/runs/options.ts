import type { Agent } from '../agents/types.js';
import type { EventStore, FileStore, ThreadRecord } from '../stores/types.js';
import type { ClientLimits } from './admission.js';

/**
 * What bounds runs on this instance: how many at once, how long and how large one may
 * be, its subscribers, and how a store outage is ridden out; plus the per-client limits
 * (`ClientLimits`). Defaults are `DEFAULTS.limits`.
 */
export interface RunLimits extends ClientLimits {
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
   * before it is disconnected to resume by offset; a large event counts one per 4 KiB.
   * @default 1000
   */
  subscriberBufferEvents: number;
  /**
   * Milliseconds an agent may stay silent (no event) before its run ends with
   * `RUN_ERROR code:"agent_timeout"`, keeping what it said so far.
   * @default 60000
   */
  agentTimeoutMs: number;
  /**
   * Longest a run may last; then it ends with `RUN_ERROR code:"run_timeout"`, keeping what
   * was said so far. At most 2³¹-1 (24.8 days).
   * @default 1800000 (30 minutes)
   */
  maxRunMs: number;
  /**
   * Most events in one run (its terminal event included); the run then ends with
   * `RUN_ERROR code:"run_too_large"`, keeping what was said so far.
   * @default 100000
   */
  maxEventsPerRun: number;
  /**
   * Most bytes of event JSON in one run; past it the run ends `run_too_large`.
   * @default 16777216 (16 MiB)
   */
  maxBytesPerRun: number;
  /**
   * While the store is down, a run keeps producing for this long: its new events wait in
   * memory (live subscribers still get them, with their final offsets) and are stored in
   * order when the store is back. Past it the run ends `RUN_ERROR code:"store_unavailable"`,
   * with everything stored before the outage intact.
   * @default 30000
   */
  storeOutageMs: number;
  /**
   * Bytes of events one run may hold in memory during a store outage; past it the run
   * ends `store_unavailable`.
   * @default 8388608 (8 MiB)
   */
  storeOutageBytes: number;
  /**
   * An append the store has not answered after this long counts as an outage at once: the
   * run's events go to live subscribers from memory (offsets final) while the append
   * waits, instead of the stream standing still until the store answers or the command
   * times out (a paused or partitioned Redis answers nothing, it does not refuse).
   * @default 1000
   */
  storeStallMs: number;
  /**
   * Most recent messages of the thread's stored history the agent gets before the
   * request's own messages (a client sends only its new prompt; a model needs the turns
   * before it). A request that repeats a stored message (same id) carries the conversation
   * itself and is passed as it is. `0` turns it off.
   * @default 100
   */
  agentHistoryMessages: number;
}

/**
 * What a `RunManager` is made with. `createResumableApp` makes the one a server uses from
 * its own options; an application reaches it as `ResumableApp.manager`.
 */
export interface RunManagerOptions {
  /** Where runs, their events and threads are kept. */
  store: EventStore;
  /** Produces the events of each run. */
  agent: Agent;
  /**
   * The limits to change from `DEFAULTS.limits`. `maxRunMs` must be 1 to 2147483647 and
   * `maxThreadMessages` 1 to 20000 (a `RangeError` otherwise).
   */
  limits?: Partial<RunLimits>;
  /**
   * Largest run request as JSON (`POST /runs` body, `startServerRun` request); larger is
   * refused `413 payload_too_large`.
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
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
  /**
   * Events each thread's event stream keeps (the newest); a resume point before them
   * answers `410 offset_expired`.
   * @default 1000
   */
  threadEventsKept?: number;
  /**
   * Where uploaded files are, so agents can read the ones a prompt names
   * (`AgentContext.readFile`). `basePath` is the routes' mount point (the file URLs').
   * @default none: agents get no `readFile`
   */
  files?: {
    /** Where the uploads are (the store's `files`, or a `DirectoryFiles`). */
    store: FileStore;
    /** The routes' mount point, without a trailing `/` (`''` at the root). */
    basePath: string;
    /**
     * Uploads no prompt named within this many milliseconds are deleted (by the stores
     * that can tell: `FileStore.sweepUnreferenced`), every ten minutes.
     * @default 86400000 (24 hours)
     */
    unreferencedMs?: number;
  };
}

/** Who starts a run, for the per-client limits. */
export interface StartingClient {
  /**
   * The client's key for the per-address limits (`addressKeys`: requests of unknown address
   * share one); null for a run the server starts itself, which no per-address limit counts.
   */
  address: string | null;
  /** Size of the request body (the per-address byte budget). */
  bytes: number;
  /** False when the request creates the thread: no run can be running on it yet. */
  threadExists: boolean;
  /**
   * The thread's record, as the caller has just read it: the thread guard does not read
   * it again (a thread deleted since, or made again with another token, is still refused,
   * atomically, by `createRun`).
   */
  thread?: ThreadRecord;
}

/** `{a: undefined}` must not override a default. */
export function definedOnly<T extends object>(values: Partial<T>): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
