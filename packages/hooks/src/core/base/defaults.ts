/**
 * Every timing and limit of the client, in one table (partysocket's `DEFAULT` habit): an
 * option left out takes its value from here, and each bound the code keeps (a buffer, a
 * budget, a wait) is named here once. Each is its own constant rather than a field of one
 * object, so a bundle carries only those it reads: the first paint reads three.
 */

// ── Options: what a session, chat or hook takes when the app says nothing ──────────────────

/** The retry policy (`retry/backoff.ts`): full jitter between `minMs` and a ceiling doubling from `initialMs` to `maxMs`. */
export const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 10_000, minMs: 50 } as const;
/** Failed attempts in a row before a session gives up (`maxRetries`). */
export const DEFAULT_MAX_RETRIES = Number.POSITIVE_INFINITY;
/** Attempts in a row the server answers without progress before `no_progress`. */
export const DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS = 10;
/** A connection open this long resets the retry count (`stableAfterMs`). */
export const DEFAULT_STABLE_AFTER_MS = 5000;
/** The server's heartbeat period; no progress for twice this is a stall (`heartbeatMs`). */
export const DEFAULT_HEARTBEAT_MS = 15_000;
/** Every request but an event stream settles within this (`requestTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** Storage calls settle within this, or storage falls back to memory (`storageTimeoutMs`). */
export const DEFAULT_STORAGE_TIMEOUT_MS = 3000;
/** Largest SSE event or line, in characters (`maxEventBytes`). */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** Record writes while a run streams, at most (`maxWritesPerSecond`). */
export const DEFAULT_MAX_WRITES_PER_SECOND = 4;
/** Messages per history page (`pageSize`). */
export const DEFAULT_PAGE_SIZE = 50;
/** Prompts the outbox holds at most (`maxOutbox`). */
export const DEFAULT_MAX_OUTBOX = 50;
/** A follower whose point stood still this long asks the server (`leaderStaleMs`). */
export const DEFAULT_LEADER_STALE_MS = 5000;
/** The engine chunk loads within this (`engineTimeoutMs`). */
export const DEFAULT_ENGINE_TIMEOUT_MS = 15_000;
/** An upload with no progress and no answer this long ends with `timeout` (`idleTimeoutMs`). */
export const DEFAULT_UPLOAD_IDLE_MS = 30_000;
/** The composer's attachment limits (`useAttachments`' `limits`). */
export const DEFAULT_ATTACHMENT_LIMITS = {
  maxFileBytes: 10 * 1024 * 1024,
  maxTotalBytes: 25 * 1024 * 1024,
  maxFiles: 10,
} as const;
/** Conversations the local thread list keeps (`maxThreads`). */
export const DEFAULT_MAX_THREADS = 100;
/** How long an AI SDK prompt may wait for its run to start (`startTimeoutMs`). */
export const DEFAULT_START_TIMEOUT_MS = 120_000;

// ── Fixed bounds: what no option changes ─────────────────────────────────────────────────

/** Once storage has answered, a call may take this many times `storageTimeoutMs` (slow is not broken). */
export const SLOW_STORAGE_FACTOR = 5;
/** A JSON answer larger than this is `unexpected_response`. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;
/** An error body is read up to this many bytes: a 20 MB HTML error page is not buffered. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Warnings a run session keeps (the newest). */
export const MAX_SESSION_WARNINGS = 20;
/** A pinned branch's page kept in the chat record at most (the newest of it). */
export const MAX_RECORDED_HISTORY = 100;
/** A message id another tab or the thread stream names, at most (characters). */
export const MAX_MESSAGE_ID_CHARS = 256;

/** The leader tab's heartbeat (a hidden tab's timers may run only once a second). */
export const TAB_HEARTBEAT_MS = 500;
/** After a check found the server ahead, the leader has this long to deliver what it had. */
export const LEADER_GRACE_MS = 1000;
/** A visible follower takes over a leader silent this long without the server's word. */
export const LEADER_SILENT_MS = 90_000;
/** The longest wait between a follower's checks of a quiet thread. */
export const IDLE_THREAD_MAX_MS = 300_000;
/** A leader answers an earlier version's `sync` at most this often. */
export const SNAPSHOT_EVERY_MS = 1000;
/** Another tab's batches held while a check is pending (the oldest go first). */
export const MAX_HELD_BATCHES = 4;
/**
 * The leader's run batches wait this long and go to the other tabs as one message: a
 * BroadcastChannel post (a structured clone and a hop through the browser) for every
 * token was a tenth of what a streamed answer cost the page.
 */
export const TAB_BATCH_EVERY_MS = 50;
/** Events per tab message. */
export const MAX_BATCH_EVENTS = 500;
/** Characters of JSON per tab message. */
export const MAX_BATCH_CHARS = 4 * 1024 * 1024;
/** A snapshot read to check an announced run serves its join this long. */
export const FRESH_SNAPSHOT_MS = 2000;

/** Announced runs' answers kept per session. */
export const MAX_KNOWN = 16;
/** Announced runs' checks in flight per session: more announcements meanwhile are dropped. */
export const MAX_IN_FLIGHT = 4;
/** Announced runs' reads per session per window: announcements past it are dropped. */
export const READ_BUDGET = 8;
export const READ_WINDOW_MS = 10_000;
/** Reads of a thread another tab says was deleted, at most. */
export const DELETE_CHECKS = 6;

/** Interrupts remembered per chat, newest kept. */
export const MAX_KNOWN_INTERRUPTS = 50;
/** How long an interrupt answer given before the engine loaded waits for it. */
export const ANSWER_WAIT_MS = 15_000;

/** The answer to an upload is small JSON; anything longer is not the server's. */
export const MAX_ANSWER = 64 * 1024;
/** Bytes per read of a file: the grain of the fetch upload's progress reports. */
export const UPLOAD_CHUNK = 64 * 1024;

/** Entries the thread list holds from another tab's messages, at most (the newest kept). */
export const MAX_LISTED_THREADS = 1000;
/** Characters of a local id (the chat's key) another tab may post: a wire id's bound. */
export const MAX_ENTRY_ID_CHARS = 200;
/** Code points of a title another tab may post: the server's own bound for a rename. */
export const MAX_TITLE_CHARS = 200;
/** Characters of a thread token another tab may post (ours are 43; room for a JWT). */
export const MAX_TOKEN_CHARS = 4096;
/** A title made from a prompt, at most (characters). */
export const MAX_PROMPT_TITLE_CHARS = 60;

/** Runs an AI SDK transport remembers as its own. */
export const MAX_OWN_RUNS = 100;
