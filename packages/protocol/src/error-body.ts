import { isErrorCode } from './error-codes.js';
import type { ErrorBody } from './errors.js';
import { HTTP_STATUS_BY_CODE, ResumableError } from './errors.js';

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
function serverErrorOf(body: unknown): ErrorBody['error'] | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const inner = (body as { error?: unknown }).error;
  if (typeof inner !== 'object' || inner === null) return null;
  const { code, message, runId } = inner as { code?: unknown; message?: unknown; runId?: unknown };
  if (!isErrorCode(code) || typeof message !== 'string') return null;
  return typeof runId === 'string' ? { code, message, runId } : { code, message };
}
