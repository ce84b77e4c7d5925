import type { Message, ResumeEntry, RunSnapshot } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';

/**
 * The storage contract of `@resumable/server`.
 *
 * A `RunManager` owns the agents and the live fan-out; an `EventStore` only keeps what must
 * survive a process: threads, runs, every event of a run under its offset, the folded
 * snapshot of a finished run, and the thread's message history. Three stores ship: `memory`
 * and `sqlite` for one process, and `redis` (Redis Streams, one primary or a cluster), which
 * implements the optional cross-instance members at the end as well; the manager uses them
 * when present.
 *
 * Rules every implementation must keep:
 * 1. **Gapless, exactly-once offsets.** `append` is atomic and conditional: it stores the
 *    batch only if its first offset is `lastOffset + 1` and the run is still `running`;
 *    otherwise it throws {@link AppendConflictError} and stores nothing. This is what makes
 *    "one terminal event" hold even when two instances race to close the same run.
 * 2. **Durable before visible.** When `append` resolves the events are readable by
 *    `readEvents` (for durable stores: on disk). The manager publishes to subscribers
 *    only after that.
 * 3. **Events are JSON text.** `StoredEvent.json` is the AG-UI event exactly as it goes in
 *    the SSE `data:` line; a store never re-serializes it, so replays cost no JSON work.
 * 4. **Errors.** An unreachable backend throws `ResumableError('store_unavailable')`
 *    (answered as 503); nothing is half-written. A write naming a thread or run that does
 *    not exist (`createRun`, `putMessages`; `append`) throws {@link threadNotFound} /
 *    {@link runNotFound} (answered as 404: a thread deleted meanwhile is no server fault).
 */

/** A stored run's status: `running` until its terminal event is stored with it. */
export type StoredRunStatus = 'running' | 'finished' | 'cancelled' | 'error';

/** A thread as the store keeps it: its id, its access token and its dates. */
export interface ThreadRecord {
  /** The thread's id (the client's, or one the server made). */
  threadId: string;
  /** The thread's capability token (protocol.md, "Access"). */
  token: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /**
   * The client-chosen `runId` of the `POST /runs` that created the thread, if any: a
   * duplicate of that very POST racing the first is recognised by it (and nobody else).
   */
  firstRunId?: string;
  /** Set by `PATCH /threads/{id}`; absent until then. */
  title?: string;
  /** Epoch milliseconds of the last rename (runs count as activity too: see the route). */
  updatedAt?: number;
}

/** A run as the store keeps it: where its log stands, and its snapshot once it ended. */
export interface RunRecord {
  /** The run's id (the client's `runId`, or the server's). */
  runId: string;
  /** The thread the run belongs to. */
  threadId: string;
  /** `running` until the terminal event is stored (`EventStore.append` with `end`). */
  status: StoredRunStatus;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds when the terminal event was stored; null while running. */
  endedAt: number | null;
  /** Highest stored offset (0 before the first event). */
  lastOffset: number;
  /** True once retention deleted the run's events (the snapshot stays). */
  eventsPruned: boolean;
  /** The folded state at the terminal event (protocol `RunSnapshot`); null while running. */
  snapshot: RunSnapshot | null;
  /** Id of the server instance that runs the agent (see `RunManagerOptions.instanceId`). */
  owner: string | null;
  /**
   * The message the run's answer follows in the thread's tree (its last new prompt, or the
   * prompt a regenerate answers again); null for an answer at the root; absent for runs
   * stored before branches existed.
   */
  replyTo?: string | null;
}

/** What `EventStore.createRun` stores: a run about to start, in status `running`. */
export interface NewRun {
  /** The run's id; creating an id that exists changes nothing (an idempotent retry). */
  runId: string;
  /** The thread, which must exist (else {@link threadNotFound}). */
  threadId: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Id of the server instance that will run the agent (`RunRecord.owner`). */
  owner: string;
  /**
   * Most runs of the thread running at once, this one included (absent or 0: no limit).
   * Checked in the same atomic step that creates the run, so instances sharing the store
   * cannot start more: past it `createRun` throws {@link runInProgress}.
   */
  maxRunningInThread?: number;
  /** See `RunRecord.replyTo`. */
  replyTo?: string | null;
  /**
   * The token of the thread record the caller read: a thread deleted and made again under
   * its id since (another token) is refused like a missing one (`threadNotFound`), in the
   * same atomic step, so a stale request never writes into someone else's thread.
   */
  threadToken?: string;
}

/** One event of a run's log. */
export interface StoredEvent {
  /** The event's offset in its log: 1 for the first, then consecutive. */
  offset: number;
  /** The AG-UI event as JSON text, one line. */
  json: string;
}

/** Stored atomically with a batch whose last event is terminal. */
export interface RunEnd {
  /** How the run ended, as its terminal event says. */
  status: Exclude<StoredRunStatus, 'running'>;
  /** Epoch milliseconds. */
  endedAt: number;
  /** The run folded through its terminal event: what `GET /runs/{id}` answers from then on. */
  snapshot: RunSnapshot;
}

/** One page of a thread's message history (`EventStore.listMessages`). */
export interface MessagePage {
  /** Oldest to newest inside the page. */
  messages: Message[];
  /** Cursor for the next older page (`?before=`), null when this page reaches the start. */
  nextBefore: number | null;
}

/** The recorded answer to one interrupt of a thread: who answered it, how, when. */
export interface InterruptAnswer {
  /** The interrupt's key in the ledger (the manager's: `<asking runId>/<interrupt id>`). */
  interruptId: string;
  /** The run that answered it (its continuation, or the new prompt that cancelled it). */
  runId: string;
  /**
   * How it was answered: the answer's own `status` (AG-UI `ResumeEntry`), `resolved` with a
   * payload or `cancelled`. An interrupt with no answer recorded is `open` on the wire.
   */
  status: ResumeEntry['status'];
  /** Epoch milliseconds. */
  answeredAt: number;
  /** The answer's `payload` (JSON), when it had one. */
  payload?: unknown;
}

/**
 * The answers to a thread's interrupts, first answer wins. The manager keys each interrupt
 * by the run that asked it (`<runId>/<interruptId>`), so an id may repeat across runs.
 */
export interface InterruptLedger {
  /**
   * Records `answers` (all by `runId`) atomically, only if none of the interrupts has an
   * answer by another run: then returns null. Otherwise records nothing and returns the
   * run that answered first. Answers already recorded for `runId` are kept (a retry).
   */
  claim(
    threadId: string,
    runId: string,
    answers: readonly InterruptAnswer[],
  ): Promise<string | null>;
  /** Removes the answers `runId` recorded for these ids (its run could not be created). */
  release(threadId: string, runId: string, interruptIds: readonly string[]): Promise<void>;
  /** The recorded answers among `interruptIds` (those with none are left out). */
  get(threadId: string, interruptIds: readonly string[]): Promise<InterruptAnswer[]>;
}

/**
 * Where a server keeps threads, runs, their events and the thread's history: the contract
 * `MemoryStore`, `SqliteStore` and `RedisStore` implement, and a store of one's own must
 * (this file's opening comment lists the rules every one keeps). The members after
 * `threadLog` are optional: what a store shared by several instances adds.
 */
export interface EventStore {
  /** `memory`, `sqlite`, `redis`: shown in logs and the README. */
  readonly kind: string;
  /** Interrupt answers, durable like the rest of the store (protocol.md, "Human in the loop"). */
  readonly interrupts: InterruptLedger;
  /**
   * True when several server instances share this store. The manager then sweeps for
   * orphaned runs periodically (not only at start-up), and serves runs owned by other
   * instances through `subscribe` (or by polling when a store lacks it).
   */
  readonly shared: boolean;

  /**
   * Creates the thread; false (and no change) when the id already exists, or belonged to a
   * thread deleted with a tombstone (`ThreadEdits.remove`): a deleted thread's id is never
   * a thread again, so a retried POST cannot bring it back. Atomic with the tombstone.
   */
  createThread(thread: ThreadRecord): Promise<boolean>;
  /** The thread, or null when there is none (never was, or deleted). */
  getThread(threadId: string): Promise<ThreadRecord | null>;

  /**
   * Creates the run in status `running` with `lastOffset` 0, atomically: when `runId`
   * exists already nothing changes and `created` is false (an idempotent POST retry, or
   * two racing POSTs with the same id: exactly one of them gets `created: true`). With
   * `maxRunningInThread`, a thread that already has that many runs `running` gets no new
   * one: {@link runInProgress} naming one of them (checked in the same atomic step).
   */
  createRun(run: NewRun): Promise<{ created: boolean; run: RunRecord }>;
  /** The run, or null when there is none (never was, or its thread was deleted). */
  getRun(runId: string): Promise<RunRecord | null>;
  /** The thread's runs, newest first. */
  listRuns(threadId: string, limit: number): Promise<RunRecord[]>;

  /**
   * Appends a batch of events with consecutive offsets. Atomic and conditional (rule 1).
   * With `end`, the last event is the terminal one and the run's status, `endedAt` and
   * snapshot are stored in the same atomic step.
   */
  append(runId: string, events: readonly StoredEvent[], end?: RunEnd): Promise<void>;
  /** Events with offset > `after`, ascending, at most `limit`. */
  readEvents(runId: string, after: number, limit: number): Promise<StoredEvent[]>;

  /**
   * Upserts messages into the thread's history by message id: a new id goes after every
   * message already there; a known id keeps its place and takes the new content.
   */
  putMessages(threadId: string, runId: string, messages: readonly Message[]): Promise<void>;
  /** A page of history older than `before` (a cursor from `nextBefore`; null = newest). */
  listMessages(threadId: string, before: number | null, limit: number): Promise<MessagePage>;

  /**
   * Runs still `running` whose producer is gone. For a single-process store, called once
   * at start-up, that is every `running` run. A shared store returns the runs whose
   * ownership lease lapsed. The manager ends each with `RUN_ERROR code:"agent_lost"` via a
   * conditional `append`, so only one instance succeeds.
   */
  findOrphanedRuns(): Promise<RunRecord[]>;
  /** Deletes the events of runs that ended before `endedBefore` (epoch ms); returns runs pruned. */
  pruneEvents(endedBefore: number): Promise<number>;

  /** Renaming and deleting threads. */
  readonly threadEdits: ThreadEdits;
  /** Where the store keeps uploaded files (an app may keep them in a directory instead). */
  readonly files: FileStore;

  /** Releases connections and files; the store is unusable afterwards. */
  close(): Promise<void>;

  /**
   * The per-thread event logs (protocol.md, "Thread event stream"). A store without one
   * gets the manager's in-memory logs (lost on restart, not shared between instances).
   */
  readonly threadLog?: ThreadLogStore;

  // ---- Optional: what a shared (multi-instance) store adds ---------------------------

  /**
   * Rate windows and quotas counted in the store, so every instance sharing it enforces
   * one budget per client and per thread. Without it each instance counts its own.
   */
  readonly counters?: SharedCounters;

  /**
   * Live tail of a run appended by any instance: calls `onEvents` with every event after
   * `after`, in order, with no gaps and no repeats, until the returned function is called
   * (a Redis store: `XREAD BLOCK` from the entry id of `after`). The manager opens one tail
   * per run that has local subscribers and is produced elsewhere.
   */
  subscribe?(
    runId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void;

  /** Asks whichever instance owns the run to cancel it (a Redis store: PUBLISH). */
  requestCancel?(runId: string): Promise<void>;
  /** Tells this instance about cancel requests made on any instance. */
  onCancelRequest?(listener: (runId: string) => void): () => void;

  /**
   * Ownership lease: the instance producing a run holds it (`SET NX PX`) and renews it
   * every `ttlMs / 3`; `findOrphanedRuns` returns runs whose lease lapsed.
   */
  acquireLease?(runId: string, owner: string, ttlMs: number): Promise<boolean>;
  /**
   * Extends `owner`'s lease on the run by `ttlMs`; false when `owner` no longer holds it
   * (it lapsed and another instance may have taken the run over: stop producing).
   */
  renewLease?(runId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up (the run ended here); a no-op when `owner` does not hold it. */
  releaseLease?(runId: string, owner: string): Promise<void>;
}

/**
 * Thrown by `EventStore.append` when the batch does not continue the run's log (its first
 * offset is not `lastOffset + 1`) or the run has already ended. The manager treats it as
 * "someone else wrote this run" and stops producing.
 */
export class AppendConflictError extends Error {
  /** Always `AppendConflictError` (what `instanceof` cannot tell across bundles). */
  override readonly name = 'AppendConflictError';
  constructor(
    /** The run whose log refused the batch. */
    readonly runId: string,
    /** The offset the run's log takes next (its `lastOffset + 1`). */
    readonly expectedOffset: number,
    /** The offset the batch had there; equal to `expectedOffset` when the run had ended. */
    readonly gotOffset: number,
  ) {
    super(`run ${runId}: append at offset ${gotOffset}, the log expects ${expectedOffset}`);
  }
}

/** What a store throws when a write names a thread that does not exist (rule 4). */
export function threadNotFound(threadId: string): ResumableError {
  return new ResumableError('thread_not_found', `no thread ${threadId}`);
}

/**
 * What `createRun` throws when the thread already has `maxRunningInThread` running runs:
 * `409 run_in_progress`, whose body names a running run (`error.runId`).
 */
export function runInProgress(threadId: string, runId: string): ResumableError {
  const error = new ResumableError(
    'run_in_progress',
    `thread ${threadId} has a run in progress (${runId}); start the next one when it ends`,
  );
  return Object.assign(error, { runId });
}

/** What a store throws when an append names a run that does not exist (rule 4). */
export function runNotFound(runId: string): ResumableError {
  return new ResumableError('run_not_found', `no run ${runId}`);
}

/**
 * Whether an append failed because the run's log is no longer this writer's: another
 * writer ended it (a conflict), or it was removed (its thread deleted, on another
 * instance). Retrying cannot help, and nobody should end it here.
 */
export function lostRunLog(error: unknown): boolean {
  return (
    error instanceof AppendConflictError ||
    (error instanceof ResumableError && error.code === 'run_not_found')
  );
}

/** `PATCH` / `DELETE /threads/{id}` on the store. */
export interface ThreadEdits {
  /** Sets the thread's title; false when there is no such thread. */
  rename(threadId: string, title: string, updatedAt: number): Promise<boolean>;
  /**
   * Deletes the thread, its runs, their events and its history (its files are the
   * `FileStore`'s), so that their bytes are gone from where the store keeps them (SQLite:
   * overwritten, and the WAL truncated). The caller has ended the thread's running runs
   * first. Leaves a tombstone — the id, no more — that `createThread` refuses, unless
   * `tombstone` is false (a thread that never had a run, removed after its first run
   * failed to start: its POST's retry must be able to make it).
   */
  remove(threadId: string, options?: { tombstone?: boolean }): Promise<void>;
}

/** An uploaded file's description (`POST /threads/{id}/files`). */
export interface StoredFile {
  /** The file's id in its thread (the server's, random). */
  fileId: string;
  /** The thread it was uploaded to. */
  threadId: string;
  /** The name the client gave, for `Content-Disposition`. */
  name: string;
  /** Sniffed from the bytes, never taken from the client. */
  mimeType: string;
  /** Bytes. */
  size: number;
  /** Epoch milliseconds. */
  createdAt: number;
}

/**
 * An upload on its way into the store (`FileStore.upload`): its bytes are written as they
 * arrive, apart from the thread's files, and become one of them at `commit`.
 */
export interface FileUpload {
  /** Adds bytes after those written so far. */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Makes the bytes written the thread's file `file` (`file.size` is how many), unless the
   * thread's files would then exceed `maxThreadBytes`: false then, and the bytes dropped.
   */
  commit(file: StoredFile, maxThreadBytes: number): Promise<boolean>;
  /** Drops the bytes written: the upload was refused, or cut short. */
  abort(): Promise<void>;
}

/** Uploaded files, per thread. */
export interface FileStore {
  /**
   * Begins an upload of `fileId` to the thread. No store holds a whole upload in memory
   * while it arrives but the memory store, which holds everything there: SQLite writes it
   * in pieces, Redis appends to one key, a directory writes a file.
   */
  upload(threadId: string, fileId: string): FileUpload;
  /** The file's description, without its bytes (what validating a prompt needs). */
  head(threadId: string, fileId: string): Promise<StoredFile | null>;
  /** The file and its bytes. */
  get(threadId: string, fileId: string): Promise<{ file: StoredFile; bytes: Uint8Array } | null>;
  /** Deletes every file of the thread. */
  removeThread(threadId: string): Promise<void>;
  /** Deletes one file, with its share of the thread's total; a no-op for an unknown one. */
  remove(threadId: string, fileId: string): Promise<void>;
  /**
   * Marks a file as named by a prompt: it is then kept until its thread is deleted. A no-op
   * for an unknown file. Without it (and `sweepUnreferenced`), uploads are never swept.
   */
  markReferenced?(threadId: string, fileId: string): Promise<void>;
  /**
   * Deletes up to `limit` files no prompt named that were uploaded before `createdBefore`
   * (each atomically with its thread's total); resolves how many.
   */
  sweepUnreferenced?(createdBefore: number, limit: number): Promise<number>;
}

/** The offsets a thread's event log holds: `first..last`, both 0 while it is empty. */
export interface ThreadLogHead {
  /** Oldest offset still kept (older ones were trimmed); 0 when the log is empty. */
  first: number;
  /** Newest offset; 0 before the first event. */
  last: number;
}

/**
 * The per-thread event log behind `GET /threads/{id}/events` (protocol.md, "Thread event
 * stream"): what happens to a thread (runs started and ended, history changes), each under
 * a thread offset 1, 2, 3, … with no gaps. Unlike a run's log, offsets are assigned by the
 * store at append time, so several instances announcing on one thread never collide, and
 * an announcement that was never stored leaves no hole. Only the newest `keep` events stay.
 */
export interface ThreadLogStore {
  /**
   * Appends one event (its JSON, one line) under the thread's next offset, atomically, and
   * trims the log to its newest `keep` events. Resolves the offset, or null (nothing
   * stored) when the thread does not exist. Throws `store_unavailable` when the backend is.
   */
  append(threadId: string, json: string, keep: number): Promise<number | null>;
  /** Events with offset > `after`, ascending, at most `limit`. */
  read(threadId: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** The offsets the log holds now (`{first: 0, last: 0}` for an empty or unknown thread). */
  head(threadId: string): Promise<ThreadLogHead>;
  /**
   * A shared store's live tail of the thread (events appended by any instance after
   * `after`, in order, once each). Without it, the instance that appends publishes.
   */
  subscribe?(
    threadId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void;
}

/** One sliding window to check or take from (`SharedCounters`). */
export interface RateTake {
  /** Whose window: a thread's (`key` is its id) or a client address's (`addressKeys`). */
  scope: 'thread' | 'address';
  /** Which budget (`runs`, `prompt-bytes`, `uploads`, …): one window per name and key. */
  name: string;
  /** The thread id, or the client address key: the window's owner within `name`. */
  key: string;
  /** Most weight in any `windowMs`. */
  limit: number;
  /** The window's length, in milliseconds (the server's windows are 60 000: a minute). */
  windowMs: number;
  /** What this take counts (1 a start, or bytes); 0 takes nothing. */
  weight: number;
}

/** Which window refused (its index in the list) and the seconds until it would not. */
export interface RateRefusal {
  /** The refusing window's position in the list given to `check` or `take`. */
  index: number;
  /** Whole seconds until the weight would fit (at least 1): the `Retry-After` answered. */
  retryAfter: number;
}

/** One thing held against a quota (a running run against its client's), until released. */
export interface QuotaHold {
  /** Which quota (`running-runs`: a client's runs running at once); one count per name and key. */
  name: string;
  /** The client address key (`addressKeys`). */
  key: string;
  /** What is held (a run id); holding it again renews it. */
  id: string;
  /** Most holds `key` may have at once under `name`. */
  limit: number;
  /** The hold lapses after this unless renewed (its holder died). */
  ttlMs: number;
}

/**
 * Counters every server instance sharing the store counts together (the Redis store).
 * A window is sliding and weighted; a quota counts what is held at once.
 */
export interface SharedCounters {
  /** The first window `weight` does not fit in now, or null; records nothing. */
  check(windows: readonly RateTake[]): Promise<RateRefusal | null>;
  /** Records `weight` in every window, or in none when one refuses (that one is the answer). */
  take(windows: readonly RateTake[]): Promise<RateRefusal | null>;
  /** How many `name` holds `key` has now; records nothing. */
  held(name: string, key: string): Promise<number>;
  /** Holds `id`: null when held, else the count already held (the quota is full). */
  hold(hold: QuotaHold): Promise<number | null>;
  /** Extends a hold (the holder is alive). */
  renew(hold: QuotaHold): Promise<void>;
  /** Ends a hold (the run ended), freeing its place in the quota; a no-op when not held. */
  release(hold: QuotaHold): Promise<void>;
}
