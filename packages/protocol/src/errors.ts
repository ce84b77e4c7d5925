/**
 * Every error the kit produces, on the server, in the client and in the UI, is a
 * `ResumableError` with one of these codes. Keeping the list in one place is what lets a
 * server answer `{"error":{"code":"offset_expired"}}` and a client branch on the same word.
 */
/** Run outcomes reported through `RUN_ERROR` (its `code`). */
export const RUN_ERROR_CODES = [
  'agent_lost',
  'agent_failed',
  'upstream_failed',
  'agent_timeout',
  'run_timeout',
  'run_too_large',
  // The run's store was unreachable past the server's grace: it ended the run (protocol.md).
  'store_unavailable',
] as const;

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

export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for the codes that cross the wire as an error response. */
export const HTTP_STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, number>>> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  run_not_found: 404,
  thread_not_found: 404,
  offset_ahead: 409,
  offset_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  run_in_progress: 409,
  method_not_allowed: 405,
  interrupt_answered: 409,
  message_not_found: 404,
  file_not_found: 404,
  too_many_requests: 429,
  internal: 500,
  store_unavailable: 503,
  not_found: 404,
};

export interface ErrorBody {
  /** `runId` names the run a conflict is about (`run_in_progress`, `interrupt_answered`). */
  error: { code: ErrorCode; message: string; runId?: string };
}

export class ResumableError extends Error {
  override readonly name = 'ResumableError';
  readonly code: ErrorCode;
  /** HTTP status when the error came from, or goes to, an HTTP response. */
  readonly status: number | undefined;
  /** Seconds to wait before retrying (from `Retry-After`), when known. */
  readonly retryAfter: number | undefined;
  /** The run a `run_in_progress` conflict names (the thread's running run). */
  readonly runId?: string;

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; retryAfter?: number; cause?: unknown; runId?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? HTTP_STATUS_BY_CODE[code];
    this.retryAfter = options.retryAfter;
    if (options.runId !== undefined) this.runId = options.runId;
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.runId !== undefined) error.runId = this.runId;
    return { error };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export function isResumableError(value: unknown): value is ResumableError {
  return value instanceof ResumableError;
}

/**
 * Reads an error response into a typed error. Only the server's own error shape
 * (`{"error":{"code":<a code the server sends over HTTP>,"message":<text>}}`) at that code's
 * own status (`HTTP_STATUS_BY_CODE`) is trusted as the server's word; anything else — a
 * proxy's HTML 404, a captive portal, a 502 whose JSON says `run_not_found`, a body naming a
 * client-only code (`corrupt_record`) — is `unexpected_response` (retryable, never a reason
 * to delete a record), keeping the status for display.
 */
export function errorFromBody(status: number, body: unknown, retryAfter?: number): ResumableError {
  const options = { status, ...(retryAfter === undefined ? {} : { retryAfter }) };
  const own = serverErrorOf(body);
  if (own !== null && HTTP_STATUS_BY_CODE[own.code] === status) {
    return new ResumableError(own.code, own.message, {
      ...options,
      ...(own.runId === undefined ? {} : { runId: own.runId }),
    });
  }
  return new ResumableError(
    'unexpected_response',
    `HTTP ${status} that is not the server's own error`,
    options,
  );
}

/** The server's own error body, strictly: a known `code` and a string `message`; else null. */
export function serverErrorOf(body: unknown): ErrorBody['error'] | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const inner = (body as { error?: unknown }).error;
  if (typeof inner !== 'object' || inner === null) return null;
  const { code, message, runId } = inner as { code?: unknown; message?: unknown; runId?: unknown };
  if (!isErrorCode(code) || typeof message !== 'string') return null;
  return typeof runId === 'string' ? { code, message, runId } : { code, message };
}

/**
 * What a client does about an error, decided once for every path (event stream, snapshot,
 * start, cancel, history, outbox) and the UI:
 * - `retry`: try again after the retry policy's delay (transient: network, 5xx, 429, a
 *   timeout, an answer that is not the server's);
 * - `snapshot`: the resume point is no longer servable: load `GET /runs/{id}` instead;
 * - `stop`: only the user can change this (auth, a bad request, the run's own failure);
 * - `forget`: the server no longer knows the run (its own 404): clear the persisted record.
 */
export type ErrorAction = 'retry' | 'snapshot' | 'stop' | 'forget';

export const ERROR_ACTIONS: Readonly<Record<ErrorCode, ErrorAction>> = {
  bad_request: 'stop',
  unauthorized: 'stop',
  forbidden: 'stop',
  run_not_found: 'forget',
  thread_not_found: 'forget',
  offset_expired: 'snapshot',
  offset_ahead: 'snapshot',
  payload_too_large: 'stop',
  too_many_requests: 'retry',
  // As a 503, retried; as a run's RUN_ERROR the run is over (a terminal state, not acted on).
  store_unavailable: 'retry',
  unsupported_media_type: 'stop',
  // The prompt waits for the running run the body names, then goes out (the chat's outbox).
  run_in_progress: 'retry',
  method_not_allowed: 'stop',
  // Someone else answered first: show their answer (the thread's snapshot), never re-send.
  interrupt_answered: 'stop',
  message_not_found: 'stop',
  file_not_found: 'stop',
  internal: 'retry',
  not_found: 'stop',
  agent_lost: 'stop',
  agent_failed: 'stop',
  upstream_failed: 'stop',
  agent_timeout: 'stop',
  run_timeout: 'stop',
  run_too_large: 'stop',
  // Stream faults: reconnect from the resume point, which the fold kept exact.
  malformed_event: 'retry',
  unknown_event: 'retry',
  offset_gap: 'retry',
  event_after_terminal: 'retry',
  bad_patch: 'retry',
  network: 'retry',
  stalled: 'retry',
  corrupt_record: 'forget',
  storage_unavailable: 'retry',
  aborted: 'retry',
  timeout: 'retry',
  bad_snapshot: 'retry',
  unexpected_response: 'retry',
  // The end of bounded retries against a server that makes no progress.
  no_progress: 'stop',
  event_too_large: 'retry',
};

/** The action for an error (see `ERROR_ACTIONS`); a status alone (408, 425, 5xx) never stops. */
export function errorAction(error: { code: ErrorCode }): ErrorAction {
  return ERROR_ACTIONS[error.code] ?? 'retry';
}
