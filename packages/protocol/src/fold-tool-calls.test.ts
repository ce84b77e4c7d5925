import { expect, it } from 'vitest';
import type { AGUIEvent } from './index.js';
import { foldLog, toEnvelopes } from './index.js';

// A review's test (hostile tool-call ids through the fold). It failed when writableToolCall
// found a call by a scan of its message's toolCalls (N calls under one parentMessageId: N
// TOOL_CALL_ARGS cost N²/2 compares); `call-positions.ts` keeps a map per batch instead.

/** RUN_STARTED, N TOOL_CALL_STARTs (under one parent message, or each its own), N ARGS. */
function log(n: number, oneParent: boolean) {
  const events: AGUIEvent[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' } as AGUIEvent];
  for (let k = 0; k < n; k++) {
    const start = { type: 'TOOL_CALL_START', toolCallId: `c${k}`, toolCallName: 'f' };
    events.push((oneParent ? { ...start, parentMessageId: 'p' } : start) as AGUIEvent);
  }
  for (let k = 0; k < n; k++) {
    events.push({ type: 'TOOL_CALL_ARGS', toolCallId: `c${k}`, delta: 'x' } as AGUIEvent);
  }
  return toEnvelopes(events);
}

function msOf(envelopes: ReturnType<typeof log>) {
  const t = performance.now();
  const state = foldLog(envelopes);
  return { ms: performance.now() - t, state };
}

it('30k TOOL_CALL_ARGS into 30k calls of one message cost about what they cost in 30k messages', () => {
  const N = 30_000;
  // Measured on this VM at 40k: 2.6 s under one parent against 0.17 s apart (15x); 10x from
  // 10k to 40k under one parent. Linear work would keep the two within a small factor.
  msOf(log(2000, true)); // warm both paths
  msOf(log(2000, false));
  const apart = msOf(log(N, false));
  const together = msOf(log(N, true));
  const calls = together.state.messages[0]?.toolCalls ?? [];
  expect([together.state.messages.length, calls.length, calls[N - 1]?.function.arguments]).toEqual([
    1,
    N,
    'x',
  ]);
  expect(apart.state.messages.length).toBe(N);
  expect(together.ms).toBeLessThan(4 * apart.ms + 50);
}, 30_000);
