/**
 * Every error the kit produces, on the server, in the client and in the UI, is a
 * `ResumableError` with one of the codes in error-codes.ts. Keeping the list in one place is
 * what lets a server answer `{"error":{"code":"offset_expired"}}` and a client branch on the
 * same word.
 */
import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

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

/** A server's JSON error response (protocol.md, "Errors"). */
export interface ErrorBody {
  /** `runId` names the run a conflict is about (`run_in_progress`, `interrupt_answered`). */
  error: {
    /** What went wrong, one word of `ERROR_CODES`. */
    code: ErrorCode;
    /** Text for a person; not stable, do not branch on it. */
    message: string;
    /** The run a conflict names (`run_in_progress`, `interrupt_answered`). */
    runId?: string;
  };
}

/** Every error of the kit: a `code` to branch on, and the HTTP status when there is one. */
export class ResumableError extends Error {
  /** Always `ResumableError` (what `instanceof` cannot tell across bundles). */
  override readonly name = 'ResumableError';
  /** What went wrong, one word of `ERROR_CODES`. */
  readonly code: ErrorCode;
  /** HTTP status when the error came from, or goes to, an HTTP response. */
  readonly status: number | undefined;
  /** Seconds to wait before retrying (from `Retry-After`), when known. */
  readonly retryAfter: number | undefined;
  /**
   * The run a conflict names: the thread's running run for `run_in_progress`, the run that
   * answered first for `interrupt_answered`.
   */
  readonly runId?: string;

  /**
   * `options.status` defaults to the code's own HTTP status (`HTTP_STATUS_BY_CODE`, none for
   * a client-only code); `options.cause` becomes the standard `Error.cause`.
   */
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

  /** The error as a server answers it (`{"error":{"code","message"}}`). */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.runId !== undefined) error.runId = this.runId;
    return { error };
  }
}

/** Whether `value` is a `ResumableError`. */
export function isResumableError(value: unknown): value is ResumableError {
  return value instanceof ResumableError;
}
