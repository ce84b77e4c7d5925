/**
 * Every error the kit produces, on the server, in the client and in the UI, is a
 * `ResumableError` with one of these codes. Keeping the list in one place is what lets a
 * server answer `{"error":{"code":"offset_expired"}}` and a client branch on the same word.
 */
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
  'store_unavailable',
  // A POST whose body is not application/json (a cross-site form or text/plain request).
  'unsupported_media_type',
  // A thread already has a running run; the error body names it (`runId`).
  'run_in_progress',
  // A method a route does not serve (HEAD on an event stream).
  'method_not_allowed',
  'internal',
  // No such route (a wrong path or method), as distinct from an unknown run or thread.
  'not_found',
  // Run outcomes reported through RUN_ERROR
  'agent_lost',
  'agent_failed',
  'upstream_failed',
  'agent_timeout',
  'run_timeout',
  'run_too_large',
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
  too_many_requests: 429,
  internal: 500,
  store_unavailable: 503,
  not_found: 404,
};

export interface ErrorBody {
  /** `runId` names the run a conflict is about (`run_in_progress`). */
  error: { code: ErrorCode; message: string; runId?: string };
}

export class ResumableError extends Error {
  override readonly name = 'ResumableError';
  readonly code: ErrorCode;
  /** HTTP status when the error came from, or goes to, an HTTP response. */
  readonly status: number | undefined;
  /** Seconds to wait before retrying (from `Retry-After`), when known. */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? HTTP_STATUS_BY_CODE[code];
    this.retryAfter = options.retryAfter;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export function isResumableError(value: unknown): value is ResumableError {
  return value instanceof ResumableError;
}

/**
 * Reads an error response body (`{"error":{"code","message"}}`) into a typed error. A body
 * that is not of that shape still yields an error, coded from the status.
 */
export function errorFromBody(status: number, body: unknown, retryAfter?: number): ResumableError {
  const inner = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code: ErrorCode = isErrorCode(inner?.code) ? inner.code : codeForStatus(status);
  const message = typeof inner?.message === 'string' ? inner.message : `HTTP ${status}`;
  return new ResumableError(code, message, {
    status,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}

function codeForStatus(status: number): ErrorCode {
  for (const [code, s] of Object.entries(HTTP_STATUS_BY_CODE)) {
    if (s === status) return code as ErrorCode;
  }
  return status >= 500 ? 'internal' : 'bad_request';
}
