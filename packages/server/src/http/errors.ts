import { ResumableError } from '@resumable/protocol';

/** A `ResumableError` (or anything thrown) as the protocol's JSON error response. */
export function errorResponse(error: unknown): Response {
  const resumable =
    error instanceof ResumableError
      ? error
      : new ResumableError('internal', 'internal server error', { cause: error });
  if (!(error instanceof ResumableError)) console.error('[resumable] internal error:', error);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (resumable.code === 'too_many_requests') {
    headers['Retry-After'] = String(resumable.retryAfter ?? 1);
  }
  return new Response(JSON.stringify(resumable.toBody()), {
    status: resumable.status ?? 500,
    headers,
  });
}
