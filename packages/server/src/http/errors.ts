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
  if (resumable.code === 'method_not_allowed') {
    const allow = (resumable as { allow?: unknown }).allow;
    headers.Allow = typeof allow === 'string' ? allow : 'GET, POST';
  }
  const body: { error: Record<string, unknown> } = resumable.toBody();
  // A 409 run_in_progress names the running run, so the client can follow it.
  const runId = (resumable as { runId?: unknown }).runId;
  if (typeof runId === 'string') body.error.runId = runId;
  return new Response(JSON.stringify(body), {
    status: resumable.status ?? 500,
    headers,
  });
}
