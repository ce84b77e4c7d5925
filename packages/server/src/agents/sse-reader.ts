import { ResumableError } from '@resumable/protocol';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';

/**
 * The SSE messages of a streaming HTTP response (an upstream agent). A transport failure
 * mid-stream becomes `upstream_failed`; the caller decides whether an ending is early.
 */
export async function* readSse(
  response: Response,
  what: string,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) throw new ResumableError('upstream_failed', `${what} sent no body`);
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<EventSourceMessage>;
      try {
        step = await reader.read();
      } catch (error) {
        throw new ResumableError(
          'upstream_failed',
          `${what} dropped the connection mid-run: ${messageOf(error)}`,
          { cause: error },
        );
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** `fetch` with upstream failures (refused, reset, non-2xx) as `upstream_failed`. */
export async function fetchUpstream(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  what: string,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ResumableError('upstream_failed', `${what} is unreachable: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => '')).slice(0, 500);
    throw new ResumableError(
      'upstream_failed',
      `${what} answered ${response.status}${text ? `: ${text}` : ''}`,
    );
  }
  return response;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
