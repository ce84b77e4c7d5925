import { ResumableError } from '@resumable/protocol';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';

/** How long and how much the proxy agents (`openaiAgent`, `aguiProxyAgent`) wait and read. */
export interface UpstreamTimeouts {
  /**
   * Milliseconds the upstream has to answer (its response headers); then the run ends
   * `RUN_ERROR code:"upstream_failed"`.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Milliseconds the upstream's stream may go without completing an event; then the run
   * ends `upstream_failed`. Bytes of an event that never completes are not progress.
   * @default 60000
   */
  idleTimeoutMs?: number;
  /**
   * Longest SSE line or event (its `data:` lines together) the upstream may send, counted
   * in decoded characters (bytes, for ASCII); past it the run ends `upstream_failed` and
   * nothing more is read, so one endless line never grows memory.
   * @default 4194304 (4 MiB)
   */
  maxEventBytes?: number;
}

/** The upstream bounds with their defaults filled in. */
export function upstreamTimeouts(options: UpstreamTimeouts): Required<UpstreamTimeouts> {
  return {
    timeoutMs: options.timeoutMs ?? 30_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    maxEventBytes: options.maxEventBytes ?? 4 * 1024 * 1024,
  };
}

/**
 * The SSE messages of a streaming HTTP response (an upstream agent). A stall, an event
 * over the bound and a transport failure mid-stream become `upstream_failed`; the caller
 * decides whether an ending is early. Leaving the loop cancels the body (the socket closes).
 */
export async function* readSse(
  response: Response,
  what: string,
  bounds: Pick<Required<UpstreamTimeouts>, 'idleTimeoutMs' | 'maxEventBytes'>,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) throw new ResumableError('upstream_failed', `${what} sent no body`);
  const { idleTimeoutMs, maxEventBytes } = bounds;
  /** Characters received while waiting for the current event (part of one, when stalled). */
  let received = 0;
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(
      new TransformStream<string, string>({
        transform(text, controller) {
          received += text.length;
          controller.enqueue(text);
        },
      }),
    )
    // Bounded: one endless `data:` line must not be buffered whole.
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: maxEventBytes }))
    .getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<EventSourceMessage>;
      let timer: ReturnType<typeof setTimeout> | undefined;
      received = 0;
      try {
        // A stalled upstream (socket open, nothing or only part of an event sent) must not
        // hold the run forever: the wait is for a complete event.
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const message =
              received === 0
                ? `${what} sent nothing for ${idleTimeoutMs} ms`
                : `${what} sent no complete event for ${idleTimeoutMs} ms (only part of one)`;
            reject(new ResumableError('upstream_failed', message));
          }, idleTimeoutMs);
        });
        step = await Promise.race([reader.read(), idle]);
      } catch (error) {
        if (error instanceof ResumableError) throw error;
        if ((error as { type?: unknown } | null)?.type === 'max-buffer-size-exceeded') {
          throw new ResumableError(
            'upstream_failed',
            `${what} sent a line or event over ${maxEventBytes} bytes`,
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

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
