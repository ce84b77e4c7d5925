import type { ResumableError } from '@resumable/protocol';
import type { ResumableEnvironment } from '../base/env.js';
import type { HeadersOption } from '../net/run-api.js';
import type { RecordStorage } from '../records/storage.js';
import type { BackoffOptions } from '../retry/backoff.js';

/** A run session's options (`useResumableRun`, `RunSession`); the provider's are the same. */
export interface RunSessionOptions {
  /** Base URL of the Resumable endpoints, e.g. `/api` or `https://host/api`. */
  endpoint: string;
  /**
   * The slot this session persists under (a thread, a chat pane). One session per key per
   * page; a reload finds its run again through it.
   */
  key: string;
  /** Replace parts of the browser environment (fetch, clock, timers, online/visible). */
  env?: Partial<ResumableEnvironment>;
  /**
   * Where records live. Any storage other than memory is guarded: a call that fails or
   * does not settle in time (`storageTimeoutMs`) switches to memory for good, with a
   * `storage_unavailable` warning, and `connection.persistence` says `memory`.
   * @default IndexedDB (database `resumable`), or memory where IndexedDB is missing
   */
  storage?: RecordStorage;
  /** Extra headers per request, re-evaluated before every attempt. */
  headers?: HeadersOption;
  /**
   * The retry policy of every path that retries (stream, snapshot, start, cancel, history,
   * outbox): full jitter between `minMs` and a ceiling doubling from `initialMs` to
   * `maxMs`. A server's `Retry-After` is honoured, clamped to [minMs, maxMs].
   * @default { initialMs: 250, maxMs: 10000, minMs: 50 }
   */
  backoff?: BackoffOptions;
  /** A connection open this long resets the retry count. @default 5000 */
  stableAfterMs?: number;
  /**
   * The server's heartbeat period; no progress (event or heartbeat) for twice this is a
   * stall, and so is waiting that long for the stream's headers. @default 15000
   */
  heartbeatMs?: number;
  /** Every HTTP request but the event stream settles within this, or fails with `timeout`. @default 15000 */
  requestTimeoutMs?: number;
  /**
   * Storage calls settle within this, or storage falls back to memory; once the storage has
   * answered, within 5× this (slow is not broken). @default 3000
   */
  storageTimeoutMs?: number;
  /**
   * Largest SSE event or line, in characters; a bigger one fails the stream with
   * `event_too_large` and the session resumes from its last good offset. @default 4 MiB
   */
  maxEventBytes?: number;
  /** Record writes while streaming, at most. @default 4 */
  maxWritesPerSecond?: number;
  /** Give up after this many failed attempts in a row. @default Infinity */
  maxRetries?: number;
  /**
   * Attempts in a row that the server answers without a new offset (204 or 410 forever, an
   * HTML page, a stream that closes at once) before the session stops with `no_progress`,
   * its text kept. Network failures do not count. @default 10
   */
  maxAttemptsWithoutProgress?: number;
  /** Veto a retry (partysocket's habit): return false to stop with the error. */
  shouldReconnect?: (error: ResumableError, attempt: number) => boolean;
  /** Typed warnings the session survived. @default console.warn */
  onWarning?: (warning: ResumableError) => void;
}
