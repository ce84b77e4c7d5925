import { ResumableError } from '@resumable/protocol';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';

/** Longest SSE line or event an upstream may send; past it the run ends `upstream_failed`. */
export const UPSTREAM_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * The SSE messages of a streaming HTTP response (an upstream agent). A transport failure
 * mid-stream becomes `upstream_failed`; the caller decides whether an ending is early.
 */
export async function* readSse(
  response: Response,
  what: string,
  idleTimeoutMs: number,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) throw new ResumableError('upstream_failed', `${what} sent no body`);
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    // Bounded: one endless `data:` line must not be buffered whole.
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: UPSTREAM_MAX_EVENT_BYTES }))
    .getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<EventSourceMessage>;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        // A stalled upstream (socket open, nothing sent) must not hold the run forever.
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const message = `${what} sent nothing for ${idleTimeoutMs} ms`;
            reject(new ResumableError('upstream_failed', message));
          }, idleTimeoutMs);
        });
        step = await Promise.race([reader.read(), idle]);
      } catch (error) {
        if (error instanceof ResumableError) throw error;
        if ((error as { type?: unknown } | null)?.type === 'max-buffer-size-exceeded') {
          throw new ResumableError(
            'upstream_failed',
            `${what} sent a line or event over ${UPSTREAM_MAX_EVENT_BYTES} bytes`,
          );
        }
        throw new ResumableError(
          'upstream_failed',
          `${what} dropped the connection mid-run: ${messageOf(error)}`,
          { cause: error },
        );
      } finally {
        clearTimeout(timer);
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Upstream timeouts of the proxy agents (`openaiAgent`, `aguiProxyAgent`). */
export interface UpstreamTimeouts {
  /**
   * Milliseconds the upstream has to answer (its response headers); then the run ends
   * `RUN_ERROR code:"upstream_failed"`.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Milliseconds the upstream's stream may stay silent; then the run ends `upstream_failed`.
   * @default 60000
   */
  idleTimeoutMs?: number;
}

/** The upstream timeouts with their defaults filled in. */
export function upstreamTimeouts(options: UpstreamTimeouts): Required<UpstreamTimeouts> {
  return { timeoutMs: options.timeoutMs ?? 30_000, idleTimeoutMs: options.idleTimeoutMs ?? 60_000 };
}

/**
 * `fetch` with upstream failures (refused, reset, non-2xx, no answer within `timeoutMs`)
 * as `upstream_failed`. The run's own signal still aborts it (cancel).
 */
export async function fetchUpstream(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit & { signal: AbortSignal },
  what: string,
  timeoutMs: number,
): Promise<Response> {
  let response: Response;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    const signal = AbortSignal.any([init.signal, timeout.signal]);
    response = await fetchImpl(url, { ...init, signal });
  } catch (error) {
    if (init.signal.aborted) throw error;
    if (timeout.signal.aborted) {
      throw new ResumableError('upstream_failed', `${what} did not answer within ${timeoutMs} ms`);
    }
    throw new ResumableError('upstream_failed', `${what} is unreachable: ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    const text = await readPrefix(response, 500, timeoutMs);
    throw new ResumableError(
      'upstream_failed',
      `${what} answered ${response.status}${text ? `: ${text}` : ''}`,
    );
  }
  return response;
}

/** The first `max` characters of a body, read within `timeoutMs`; the rest is never read. */
async function readPrefix(response: Response, max: number, timeoutMs: number): Promise<string> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return '';
  let text = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    while (text.length < max) {
      const step = await Promise.race([reader.read(), late]);
      if (step === null || step.done) break;
      text += step.value;
    }
  } catch {
    // What was read so far is all the message needs.
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(() => {});
  }
  return text.slice(0, max);
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
