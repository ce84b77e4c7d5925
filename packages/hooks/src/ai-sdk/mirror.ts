import { isTerminalStatus } from '@resumable/protocol';
import type { UIMessageChunk } from 'ai';
import type { RunSession } from '../core/run/run-session.js';
import type { RunSessionState } from '../core/run/session-store.js';
import { chunksBetween } from './chunks.js';
import type { Segment } from './segments.js';
import { segmentsOf } from './segments.js';

/**
 * A run as a `UIMessageChunk` stream that mirrors the session's folded state: `start` with
 * the run id as the message id, then, on every pull, the chunks from what was sent so far
 * to what the fold holds now, then the end the run had.
 *
 * The session does the network (resume from the persisted offset, reconnects, offline);
 * this only reads its store. Pull-based, so a slow reader gets the changes coalesced into
 * one delta per part instead of a growing queue: the buffer is bounded by the reply itself.
 */
export function mirrorRun(run: RunSession, runId: string): ReadableStream<UIMessageChunk> {
  let sent: Segment[] = [];
  let started = false;
  let wake: (() => void) | null = null;
  let unsubscribe: (() => void) | null = null;
  const stopWaiting = () => {
    unsubscribe?.();
    unsubscribe = null;
    const w = wake;
    wake = null;
    w?.();
  };
  /** Resolves on the next store update (or when the reader goes away). */
  const nextChange = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      unsubscribe = run.store.subscribe(stopWaiting);
    });

  return new ReadableStream<UIMessageChunk>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          controller.enqueue({ type: 'start', messageId: runId });
          return;
        }
        for (;;) {
          const state = run.getState();
          const step = stepOf(state, runId, sent);
          sent = step.sent;
          for (const chunk of step.chunks) controller.enqueue(chunk);
          if (step.done) {
            controller.close();
            return;
          }
          if (step.chunks.length > 0) return;
          await nextChange();
        }
      },
      cancel() {
        stopWaiting();
      },
    },
    { highWaterMark: 0 },
  );
}

interface Step {
  chunks: UIMessageChunk[];
  sent: Segment[];
  done: boolean;
}

/** What one look at the session state adds to the stream. */
export function stepOf(state: RunSessionState, runId: string, sent: Segment[]): Step {
  if (state.runId !== runId) {
    // Another run took the key (another tab sent a prompt): this reply is over as far as
    // this stream can tell.
    return { chunks: [{ type: 'finish' }], sent, done: true };
  }
  const segments = segmentsOf(state.messages);
  const chunks = chunksBetween(sent, segments);
  if (isTerminalStatus(state.status)) {
    if (state.status === 'finished') chunks.push({ type: 'finish', finishReason: 'stop' });
    else if (state.status === 'cancelled') chunks.push({ type: 'abort', reason: 'cancelled' });
    else chunks.push({ type: 'error', errorText: state.run.error?.message ?? 'the run failed' });
    return { chunks, sent: segments, done: true };
  }
  if (state.error !== null) {
    // The session gave up (run unknown, unauthorized, retries exhausted): say why.
    chunks.push({ type: 'error', errorText: `${state.error.code}: ${state.error.message}` });
    return { chunks, sent: segments, done: true };
  }
  return { chunks, sent: segments, done: false };
}
