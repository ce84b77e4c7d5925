/**
 * The one list of error codes (see errors.ts). Apart from the error class so that a bundle
 * needing only `ResumableError` (a client's first paint) does not carry the list.
 */
import { RUN_ERROR_CODES } from './run-error-codes.js';

/** Every code a `ResumableError` may carry: the wire's, the run's and the client's own. */
export const ERROR_CODES = [
  // HTTP contract (protocol.md, "Errors")
  'bad_request',
  'unauthorized',
  'forbidden',
  'run_not_found',
  'thread_not_found',
  'offset_expired',
  'offset_ahead',
  'payload_too_large',
  'too_many_requests',
  // (`store_unavailable`, a 503, is also a run's end: listed with RUN_ERROR_CODES.)
  // A POST whose body is not application/json (a cross-site form or text/plain request).
  'unsupported_media_type',
  // A thread already has a running run; the error body names it (`runId`).
  'run_in_progress',
  // A method a route does not serve (HEAD on an event stream).
  'method_not_allowed',
  // An interrupt already answered by another run (another tab, device or retry); the error
  // body names the run that answered it (`runId`).
  'interrupt_answered',
  // A message id the request builds on (a branch parent, an edited prompt) that the thread lacks.
  'message_not_found',
  // An uploaded file the thread does not have (unknown or deleted).
  'file_not_found',
  'internal',
  // No such route (a wrong path or method), as distinct from an unknown run or thread.
  'not_found',
  ...RUN_ERROR_CODES,
  // Stream and fold faults
  'malformed_event',
  'unknown_event',
  'offset_gap',
  'event_after_terminal',
  'bad_patch',
  // Client-side conditions
  'network',
  'stalled',
  'corrupt_record',
  'storage_unavailable',
  'aborted',
  // A request or storage call that did not settle in time.
  'timeout',
  // A snapshot (GET /runs/{id}) that does not parse as one.
  'bad_snapshot',
  // An answer that is not the server's own (an HTML error page, a wrong content type).
  'unexpected_response',
  // The server keeps answering without progress (same offset, no new event).
  'no_progress',
  // An SSE line or event over the configured size limit.
  'event_too_large',
] as const;

/** One of `ERROR_CODES`. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether `value` is one of `ERROR_CODES` (a server's body is checked with it). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
