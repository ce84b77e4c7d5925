// Every timing and limit of the server, in one place. `DEFAULTS` is what each option is
// when it is not given (the options' `@default` docs say the same values, and
// test/defaults.test.ts checks that they do); the constants after it are the timings and
// limits that are not options. Nothing here is computed: a reader sees every number.

const KiB = 1024;
const MiB = 1024 * KiB;
const HOUR_MS = 3_600_000;

/**
 * What every option of `createResumableApp` / `startServer` and of the stores and upstream
 * agents defaults to, grouped as the options are.
 */
export const DEFAULTS = {
  /** `limits` (`ServerLimits`). */
  limits: {
    maxRunningRunsPerThread: 1,
    maxRunsPerMinutePerThread: 60,
    maxRunsPerMinutePerAddress: 300,
    maxRunningRunsPerAddress: 50,
    maxPromptBytesPerMinutePerAddress: 16 * MiB,
    maxThreadMessages: 10_000,
    maxConcurrentRuns: 100,
    maxSubscribersPerRun: 2000,
    subscriberBufferEvents: 1000,
    agentTimeoutMs: 60_000,
    maxRunMs: 30 * 60_000,
    maxEventsPerRun: 100_000,
    maxBytesPerRun: 16 * MiB,
    storeOutageMs: 30_000,
    storeOutageBytes: 8 * MiB,
    storeStallMs: 1000,
    agentHistoryMessages: 100,
    maxBodyBytes: 1 * MiB,
    /**
     * Open event streams per client address. One address is often many people (an
     * office or carrier NAT, every client behind a proxy when `clientAddress` is not set), each
     * following a thread and a run, so the default is well above one user's needs (100 cut off
     * the 101st user behind one NAT) and half the per-run limit: one address alone cannot hold
     * every socket a run may have.
     */
    maxStreamsPerAddress: 1000,
  },
  /** `files` (`FileOptions`). */
  files: {
    maxFileBytes: 10 * MiB,
    maxThreadBytes: 50 * MiB,
    maxUploadsPerMinutePerAddress: 60,
    maxUploadsPerMinutePerThread: 30,
    maxUploadBytesPerMinutePerAddress: 100 * MiB,
    unreferencedHours: 24,
  },
  /** `retention`. */
  retention: {
    eventsHours: 168,
    threadEvents: 1000,
  },
  /** `ResumableServerOptions.store`. */
  store: 'memory',
  /** `createResumableApp`'s; `startServer` mounts at `/api` unless told otherwise. */
  basePath: '',
  /** `ResumableServerOptions.heartbeatMs`. */
  heartbeatMs: 15_000,
  /** `ResumableServerOptions.fanoutCoalesceMs`. */
  fanoutCoalesceMs: 15,
  /** `ResumableServerOptions.orphanSweepMs`. */
  orphanSweepMs: 60_000,
  /** `ResumableServerOptions.leaseMs`. */
  leaseMs: 15_000,
  /** How often a subscriber of a run (or thread) with no live feed re-reads the store. */
  pollMs: 250,
  /** `UpstreamTimeouts` of `openaiAgent` and `aguiProxyAgent`. */
  upstream: {
    timeoutMs: 30_000,
    idleTimeoutMs: 60_000,
    keepAliveTimeoutMs: 10 * 60_000,
    maxEventBytes: 4 * MiB,
  },
  /** `RedisStoreOptions`. */
  redis: {
    url: 'redis://127.0.0.1:6379',
    prefix: 'resumable:',
    eventsTtlMs: 168 * HOUR_MS,
    leaseMs: 15_000,
    connectWaitMs: 1000,
    commandTimeoutMs: 5000,
    tailCheckMs: 5000,
    maxReconnectDelayMs: 1000,
    /** `durableAppends` on a cluster (one Redis: off). */
    durableAppends: { replicas: 1, timeoutMs: 1000, connections: 4 },
    /** ioredis `slotsRefreshInterval` of a cluster connection. */
    slotsRefreshInterval: 2000,
  },
  /** `MemoryStoreOptions`. */
  memory: {
    maxEventBytes: 256 * MiB,
  },
  /** `StartServerOptions`: the Node server's own. */
  startServer: {
    port: 8787,
    hostname: '127.0.0.1',
    basePath: '/api',
    closeGraceMs: 2000,
    socketIdleMs: 60_000,
    headersTimeoutMs: 30_000,
    /** A 10 MiB upload at 1 Mbit/s takes 84 s. */
    requestTimeoutMs: 120_000,
  },
} as const;

export { HOUR_MS };

// Timings and limits that are not options, by the folder that uses them.

// stores/
/** Keys deleted per script (a script takes its keys as arguments). */
export const REDIS_DELETE_CHUNK = 500;
/** Index entries looked at per orphan sweep; the next sweep goes on. */
export const REDIS_SWEEP_BATCH = 1000;
/** Pause between attempts to subscribe (cancel requests, a live tail's channel) that failed. */
export const REDIS_SUBSCRIBE_RETRY_MS = 1000;
/** A batch's message: `<first>:<last>`, then the events' JSON, one a line, when small. */
export const LIVE_BODY_MAX = 65_536;
/** Run ids whose thread this instance remembers (a run's thread never changes). */
export const REMEMBERED_RUN_THREADS = 50_000;
/** Keys per `SCAN` step. */
export const MIGRATE_SCAN_COUNT = 500;
/** An upload is written to SQLite in pieces of this many bytes (its last one smaller). */
export const SQLITE_FILE_PIECE_BYTES = 256 * KiB;
/**
 * An upload in progress on Redis (appended to one key) is dropped by Redis itself when no
 * piece came for this long: one its server died writing is never kept.
 */
export const REDIS_UPLOAD_TTL_MS = 10 * 60_000;
/** `evictOldest`'s queue is compacted past this many entries and twice the events kept. */
export const THREAD_LOG_COMPACT_AFTER = 1024;

// agents/
/** Events of unknown types per run passed on to be logged; the rest are skipped silently. */
export const LOGGED_UNKNOWN_EVENTS = 10;
/** Longest tool call id an upstream may send. */
export const MAX_TOOL_CALL_ID_CHARS = 256;
/** Most characters of an upstream's body quoted in a run's error message. */
export const QUOTED_UPSTREAM_CHARS = 500;
/** Secrets shorter than this are not redacted (they would blank common words). */
export const MIN_SECRET_CHARS = 4;

// input.ts
/** JSON nesting a body may have; deeper input fails later in copies and folds. */
export const MAX_DEPTH = 64;

// http/
/** Most messages one `GET /threads/{id}/messages` page holds (`limit`). */
export const MAX_MESSAGE_PAGE = 200;
/** Longest file name kept, in characters. */
export const MAX_FILE_NAME = 255;
/** Longest thread title, in characters. */
export const MAX_TITLE_LENGTH = 200;
/** Largest `POST /threads` / `PATCH /threads/:id` body: a title and some JSON around it. */
export const MAX_EDIT_BODY = 4096;
/** How long a thread counts as just created, for a racing duplicate of its first POST. */
export const FRESH_THREAD_MS = 5000;
/**
 * Most bytes of a refused request's body the server reads and drops after answering, so
 * the client can finish sending and read the answer (as much as @hono/node-server drops
 * behind `toNodeListener`). A body declared larger is answered `Connection: close`.
 */
export const MAX_DRAINED_BYTES = 64 * MiB;

// node.ts
/**
 * How long a connection answered `Connection: close` with its request's body unread stays
 * open (its answer and FIN sent, nothing read) before it is closed: time for the client's
 * side to have the answer before the close resets the connection.
 */
export const CLOSE_LINGER_MS = 500;

// branches/
/**
 * Pages read to build a tree. Each `POST /runs`, run end and `GET /threads/{id}/messages`
 * reads the whole history this way: at 10,000 messages of ~200 bytes that took 30-100 ms
 * on the memory store, 110-200 ms on SQLite and 210-370 ms on Redis (2 shared cores).
 * `limits.maxThreadMessages` may not exceed `MAX_TREE_MESSAGES`, so a tree is never cut.
 */
export const TREE_PAGE = 1000;
export const TREE_PAGES = 20;

// threads/
/** Backoff between attempts while the store fails; the last step repeats. */
export const ANNOUNCE_RETRIES_MS = [50, 250, 1000];
/** Announcements waiting for the store at once, all threads together. */
export const MAX_QUEUED_ANNOUNCEMENTS = 10_000;

// runs/
/** Most runs a thread can have that a delete looks at (far above any per-thread rate). */
export const MAX_DELETED_THREAD_RUNS = 100_000;
/** How long a delete waits for a run produced on another instance to end. */
export const DELETE_REMOTE_END_MS = 5000;
/** How long a delete waits for its announcement to reach this instance's open streams. */
export const DELETE_DELIVERY_MS = 2000;
/**
 * How long an answer may name a run that does not exist yet: a claim is recorded before
 * its run is created (admission, branch placement and `createRun` come between). Past it,
 * the run's creation failed and so did the release of its claim (runs/start.ts), and the
 * answer is abandoned: the interrupt is open again, for an answer under any runId.
 */
export const CLAIM_GRACE_MS = 60_000;
/** Pending events beyond which the agent waits for the store (backpressure). */
export const MAX_PENDING_EVENTS = 512;
/** Backoff between appends while the store is failing; the last step repeats. */
export const APPEND_RETRIES_MS = [50, 250, 1000];
/** Backoff while ending a run whose events the store failed to take; the last step repeats. */
export const END_RETRIES_MS = [250, 1000, 2500, 5000];
/** How long the producer waits for an agent's own RUN_STARTED before sending one. */
export const START_GRACE_MS = 50;
/** How often finished runs' expired events are pruned (and unreferenced uploads swept). */
export const PRUNE_EVERY_MS = 10 * 60_000;

// streams/
/** Events read from the store per page while a subscriber catches up. */
export const PAGE_EVENTS = 256;
/** Queue size (in events) under which a catching-up stream reads its next page. */
export const QUEUE_LOW_WATER = 64;
/**
 * A queued chunk counts as at least one event per this many bytes: a replay of large
 * events stops reading at `QUEUE_LOW_WATER` × 4 KiB, not 64 events of a megabyte each.
 */
export const UNIT_BYTES = 4096;
/**
 * A replay chunk ends past this many bytes (the rest of its page is read again later), and
 * the next page asks for as many events as fit in it: what a reader that stops holds
 * stays small however large the run's events are.
 */
export const CHUNK_BYTES = 64 * 1024;
/** Below this many subscribers a hub delivers every batch at once (latency first). */
export const COALESCE_MIN_SUBSCRIBERS = 32;
