import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { type AiSdkStreamPart, aiSdkEvents } from './events.js';

/** Parts as a provider-agnostic iterable: the adapter takes any, not only `fullStream`. */
async function* partsOf(parts: unknown[]): AsyncGenerator<AiSdkStreamPart> {
  for (const part of parts) yield part as AiSdkStreamPart;
}

async function collect(parts: unknown[], signal?: AbortSignal) {
  const events: unknown[] = [];
  try {
    for await (const event of aiSdkEvents(partsOf(parts), { runId: 'r', signal })) {
      events.push(event);
    }
  } catch (error) {
    return { events, error };
  }
  return { events, error: null };
}

const USAGE = {
  inputTokens: 3,
  inputTokenDetails: { noCacheTokens: 3, cacheReadTokens: undefined, cacheWriteTokens: undefined },
  outputTokens: 4,
  outputTokenDetails: { textTokens: 4, reasoningTokens: undefined },
  totalTokens: 7,
};
const FINISH = { type: 'finish', finishReason: 'stop', rawFinishReason: 'stop', totalUsage: USAGE };

describe('aiSdkEvents', () => {
  it('maps a tool error, skips preliminary results, opens a block a delta arrives for, closes blocks left open at finish', async () => {
    const { events, error } = await collect([
      { type: 'start' },
      { type: 'text-delta', id: 'a', text: 'no start' },
      { type: 'text-delta', id: 'a', text: '' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'fetch', input: { url: 'x' } },
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'fetch',
        output: 'part',
        preliminary: true,
      },
      { type: 'tool-error', toolCallId: 'c1', toolName: 'fetch', error: new Error('timed out') },
      { type: 'reasoning-start', id: 'z' },
      { type: 'reasoning-delta', id: 'z', text: 'hmm' },
      FINISH,
    ]);
    expect(error).toBeNull();
    expect(events).toEqual([
      { type: 'TEXT_MESSAGE_START', messageId: 'msg-r', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'msg-r', delta: 'no start' },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'c1',
        toolCallName: 'fetch',
        parentMessageId: 'msg-r',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"url":"x"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'result-c1',
        toolCallId: 'c1',
        content: '{"error":"timed out"}',
        role: 'tool',
      },
      { type: 'REASONING_START', messageId: 'reasoning-r-1' },
      { type: 'REASONING_MESSAGE_START', messageId: 'reasoning-r-1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'reasoning-r-1', delta: 'hmm' },
      { type: 'TEXT_MESSAGE_END', messageId: 'msg-r' },
      { type: 'REASONING_MESSAGE_END', messageId: 'reasoning-r-1' },
      { type: 'REASONING_END', messageId: 'reasoning-r-1' },
      {
        type: 'RUN_FINISHED',
        threadId: '',
        runId: 'r',
        outcome: { type: 'success' },
        usage: [{ inputTokens: 3, outputTokens: 4, totalTokens: 7 }],
      },
    ]);
  });

  it('gives a second text block of a step, and each later step, its own message', async () => {
    const { events } = await collect([
      { type: 'start-step' },
      { type: 'text-start', id: 'a' },
      { type: 'text-end', id: 'a' },
      { type: 'text-start', id: 'b' },
      { type: 'text-end', id: 'b' },
      { type: 'start-step' },
      { type: 'text-start', id: 'a' },
      { type: 'text-end', id: 'a' },
      FINISH,
    ]);
    const starts = events
      .filter((e) => (e as { type: string }).type === 'TEXT_MESSAGE_START')
      .map((e) => (e as { messageId: string }).messageId);
    expect(starts).toEqual(['msg-r', 'msg-r-1-1', 'msg-r-2']);
  });

  it('ends upstream_failed on a stream without finish, and on an abort nobody asked for', async () => {
    const cut = await collect([{ type: 'text-start', id: 'a' }]);
    expect(cut.error).toBeInstanceOf(ResumableError);
    expect((cut.error as ResumableError).code).toBe('upstream_failed');
    expect((cut.error as ResumableError).message).toBe('the model stream ended without finishing');

    const aborted = await collect(
      [{ type: 'abort', reason: 'timeout' }],
      new AbortController().signal,
    );
    expect((aborted.error as ResumableError).code).toBe('upstream_failed');
    expect((aborted.error as ResumableError).message).toBe('the model call was aborted: timeout');
  });

  it('ends quietly on an abort that our cancel caused', async () => {
    const cancel = new AbortController();
    cancel.abort();
    expect(await collect([{ type: 'abort' }], cancel.signal)).toEqual({ events: [], error: null });
    expect(await collect([], cancel.signal)).toEqual({ events: [], error: null });
  });
});
