import { expect, it } from 'vitest';
import type { AGUIEvent, RunState, RunToolCall } from './index.js';
import { applyEnvelopes, foldLog, toEnvelopes } from './index.js';

// A review's case (hostile tool-call ids through the fold): writableToolCall found a call
// by a scan of its message's toolCalls, so N calls under one parentMessageId made N
// TOOL_CALL_ARGS cost N²/2 compares (30k: 2.1 s, against 0.22 s in 30k messages).
// `call-positions.ts` keeps a map per batch instead. Counted, not timed: every read of a
// call's `id` is counted through a getter.

const N = 3000;

/** A state holding one message `p` with N open calls, whose `id` reads are counted. */
function manyCalls() {
  const events: AGUIEvent[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' } as AGUIEvent];
  for (let k = 0; k < N; k++) {
    events.push({
      type: 'TOOL_CALL_START',
      toolCallId: `c${k}`,
      toolCallName: 'f',
      parentMessageId: 'p',
    } as AGUIEvent);
  }
  const folded = foldLog(toEnvelopes(events));
  const counter = { reads: 0 };
  const counted = folded.messages[0]!.toolCalls!.map((call) => {
    const { id, ...rest } = call;
    return Object.defineProperty({ ...rest }, 'id', {
      enumerable: true,
      get() {
        counter.reads++;
        return id;
      },
    }) as RunToolCall;
  });
  const base: RunState = {
    ...folded,
    messages: [{ ...folded.messages[0]!, toolCalls: counted } as RunState['messages'][number]],
  };
  return { base, counter };
}

it('N TOOL_CALL_ARGS into N calls of one message read the calls’ ids O(N) times, not N²/2', () => {
  const { base, counter } = manyCalls();
  // Last call first: a scan from the start reads every call before it, none yet copied.
  const args = Array.from(
    { length: N },
    (_, k) => ({ type: 'TOOL_CALL_ARGS', toolCallId: `c${N - 1 - k}`, delta: 'x' }) as AGUIEvent,
  );
  const { state } = applyEnvelopes(base, toEnvelopes(args, base.offset + 1));
  const calls = state.messages[0]!.toolCalls!;
  expect([state.messages.length, calls.length]).toEqual([1, N]);
  expect(calls.every((call, k) => call.id === `c${k}` && call.function.arguments === 'x')).toBe(
    true,
  );
  // The position map reads each id once, and each call's copy once (N²/2 was 4.5M here).
  expect(counter.reads).toBe(2 * N);
});
