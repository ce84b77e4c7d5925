import { EventSourceParserStream } from 'eventsource-parser/stream';
import { isTerminalJson } from '../../src/stores/stored-events.js';
import type { Frame } from '../helpers.js';

export interface ResumingReader {
  /** Every event applied, in offset order, once each. */
  frames: Frame[];
  /** When each frame arrived (`performance.now()`), beside `frames`. */
  arrivals: number[];
  /** Answers other than a 200 stream (a 503 while the store is away, a 409…), in order. */
  refusals: number[];
  /** Resolves with `frames` once the terminal event arrived; rejects past `timeoutMs`. */
  done: Promise<Frame[]>;
  stop(): void;
}

/**
 * A client that follows a run to its end the way the protocol says: it applies events in
 * offset order, drops repeats, treats a gap as a fault, and when a stream ends before the
 * terminal event (or is refused) it reconnects from its resume point (`after=`) after a
 * short pause. `url(after)` names the instance to read through (it may change); `from` is
 * the resume point it starts at (a snapshot's `lastOffset`).
 */
export function resumingReader(
  url: (after: number) => string,
  headers: Record<string, string>,
  { from = 0, timeoutMs = 60_000, pauseMs = 100 } = {},
): ResumingReader {
  const frames: Frame[] = [];
  const arrivals: number[] = [];
  const refusals: number[] = [];
  const controller = new AbortController();
  let point = from;
  const done = (async () => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until && !controller.signal.aborted) {
      try {
        const response = await fetch(url(point), { headers, signal: controller.signal });
        if (response.status === 204) throw new Error(`204 after ${point}: the terminal was missed`);
        if (response.status !== 200 || !response.body) {
          refusals.push(response.status);
          await response.arrayBuffer().catch(() => undefined);
        } else {
          const reader = response.body
            .pipeThrough(new TextDecoderStream())
            .pipeThrough(new EventSourceParserStream())
            .getReader();
          for (;;) {
            const step = await reader.read();
            if (step.done) break;
            const offset = Number(step.value.id);
            if (offset <= point) continue;
            if (offset !== point + 1) throw new Error(`gap: ${offset} after ${point}`);
            frames.push({ offset, json: step.value.data });
            arrivals.push(performance.now());
            point = offset;
            if (isTerminalJson(step.value.data)) {
              controller.abort();
              return frames;
            }
          }
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        if (!isNetworkError(error)) throw error;
        // The connection dropped (the server closed it, or it could not connect): resume.
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    if (frames.length > 0 && isTerminalJson(frames[frames.length - 1]!.json)) return frames;
    throw new Error(`no terminal event after ${point} within ${timeoutMs} ms`);
  })();
  return { frames, arrivals, refusals, done, stop: () => controller.abort() };
}

/** What fetch and a response body throw when the connection fails or drops. */
function isNetworkError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /fetch failed|terminated|other side closed|network/i.test(error.message)
  );
}
