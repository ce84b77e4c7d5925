import { ResumableError } from '@resumable/protocol';
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { DEFAULTS } from '../defaults.js';

/** How long and how much the proxy agents (`openaiAgent`, `aguiProxyAgent`) wait and read. */
export interface UpstreamTimeouts {
  /**
   * Milliseconds the upstream has to answer (its response headers); then the run ends
   * `RUN_ERROR code:"upstream_failed"`.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Milliseconds the upstream's stream may go without completing an event or an SSE
   * comment line (a keep-alive); then the run ends `upstream_failed`. Bytes of an event
   * or comment that never completes are not progress.
   * @default 60000
   */
  idleTimeoutMs?: number;
  /**
   * Milliseconds the upstream may keep its stream alive with SSE comment lines alone
   * (`: OPENROUTER PROCESSING`, a model thinking out of sight) without an event; then the
   * run ends `upstream_failed`. Keep-alives forever are a stuck upstream, not a slow one.
   * @default 600000 (10 minutes)
   */
  keepAliveTimeoutMs?: number;
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
    timeoutMs: options.timeoutMs ?? DEFAULTS.upstream.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULTS.upstream.idleTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULTS.upstream.keepAliveTimeoutMs,
    maxEventBytes: options.maxEventBytes ?? DEFAULTS.upstream.maxEventBytes,
  };
}

/**
 * The SSE messages of a streaming HTTP response (an upstream agent). A stall, an event
 * over the bound and a transport failure mid-stream become `upstream_failed`; the caller
 * decides whether an ending is early. A comment line (`: keep-alive`) is not a message: it
 * proves the upstream alive for `idleTimeoutMs`, up to `keepAliveTimeoutMs` without a
 * message, and is reported to `onKeepAlive`. Leaving the loop cancels the body (the
 * socket closes).
 */
export async function* readSse(
  response: Response,
  what: string,
  bounds: Omit<Required<UpstreamTimeouts>, 'timeoutMs'>,
  onKeepAlive?: () => void,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) throw new ResumableError('upstream_failed', `${what} sent no body`);
  const { idleTimeoutMs, keepAliveTimeoutMs, maxEventBytes } = bounds;
  /** Characters received since the last complete comment or event (part of one, when stalled). */
  let received = 0;
  /** When the last complete comment line came (0: none while waiting for this event). */
  let keptAliveAt = 0;
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
    .pipeThrough(
      new EventSourceParserStream({
        maxBufferSize: maxEventBytes,
        onComment: () => {
          received = 0;
          keptAliveAt = performance.now();
          onKeepAlive?.();
        },
      }),
    )
    .getReader();
  try {
    for (;;) {
      let step: ReadableStreamReadResult<EventSourceMessage>;
      let timer: ReturnType<typeof setTimeout> | undefined;
      received = 0;
      keptAliveAt = 0;
      const waitingSince = performance.now();
      try {
        // A stalled upstream (socket open, nothing or only part of an event sent) must not
        // hold the run forever: the wait is for a complete event, or a keep-alive.
        const idle = new Promise<never>((_, reject) => {
          const check = () => {
            const now = performance.now();
            const quiet = now - Math.max(waitingSince, keptAliveAt);
            const waited = now - waitingSince;
            const stall = stallOf(quiet, waited, keptAliveAt > 0, bounds);
            if (stall === null) {
              const idleLeft = idleTimeoutMs - quiet;
              const left =
                keptAliveAt > 0 ? Math.min(idleLeft, keepAliveTimeoutMs - waited) : idleLeft;
              timer = setTimeout(check, Math.max(1, left));
              return;
            }
            const message =
              stall === 'keep-alives'
                ? `${what} sent only keep-alive comments for ${keepAliveTimeoutMs} ms`
                : received > 0
                  ? `${what} sent no complete event for ${idleTimeoutMs} ms (only part of one)`
                  : keptAliveAt > 0
                    ? `${what} sent nothing for ${idleTimeoutMs} ms after a keep-alive comment`
                    : `${what} sent nothing for ${idleTimeoutMs} ms`;
            reject(new ResumableError('upstream_failed', message));
          };
          timer = setTimeout(check, idleTimeoutMs);
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

/**
 * Whether a wait for the next event is a stall: quiet (no event, no keep-alive) for
 * `idleTimeoutMs`, or kept alive by comments alone for `keepAliveTimeoutMs`.
 */
function stallOf(
  quietMs: number,
  waitedMs: number,
  keptAlive: boolean,
  bounds: { idleTimeoutMs: number; keepAliveTimeoutMs: number },
): 'idle' | 'keep-alives' | null {
  if (keptAlive && waitedMs >= bounds.keepAliveTimeoutMs) return 'keep-alives';
  return quietMs >= bounds.idleTimeoutMs ? 'idle' : null;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
