import { ResumableError } from '@resumable/protocol';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';

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
    .pipeThrough(new EventSourceParserStream())
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
