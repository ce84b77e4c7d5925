import type { AGUIEvent, RunState } from '@resumable/protocol';
import { createRunState, foldLog, toEnvelopes } from '@resumable/protocol';
import type { UIMessage, UIMessageChunk } from 'ai';
import { readUIMessageStream } from 'ai';
import { describe, expect, it } from 'vitest';
import { chunksBetween, chunksFor } from './chunks.js';
import type { Segment } from './segments.js';
import { partsOf, segmentsOf } from './segments.js';

const START = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' };
/** A run with reasoning, a tool call and its result, then text: every segment kind. */
const EVENTS: object[] = [
  START,
  { type: 'REASONING_MESSAGE_START', messageId: 'rs1', role: 'reasoning' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'Think ' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'first.' },
  { type: 'REASONING_MESSAGE_END', messageId: 'rs1' },
  { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'get_time', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"timezone":' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"UTC"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'c1' },
  { type: 'TOOL_CALL_RESULT', messageId: 't1m', toolCallId: 'c1', content: '{"now":"12:00"}' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'It is ' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'noon.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
];

const foldN = (n: number): RunState =>
  foldLog(toEnvelopes(EVENTS.slice(0, n) as AGUIEvent[], 1), createRunState());
const segmentsAt = (n: number) => segmentsOf(foldN(n).messages);

/** What the AI SDK's own reader (the one `useChat` uses) makes of `chunks`. */
async function read(chunks: UIMessageChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      controller.enqueue({ type: 'start', messageId: 'r1' });
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true })) last = m;
  if (!last) throw new Error('no message');
  return last;
}

describe('segments and chunks', () => {
  it('segments of the folded run: reasoning, the tool call with its result, the text', () => {
    expect(segmentsAt(EVENTS.length)).toEqual([
      { kind: 'reasoning', id: 'rs1', text: 'Think first.', open: false },
      {
        kind: 'tool',
        id: 'c1',
        name: 'get_time',
        args: '{"timezone":"UTC"}',
        open: false,
        result: { content: '{"now":"12:00"}' },
      },
      { kind: 'text', id: 'm2', text: 'It is noon.', open: false },
    ]);
  });

  it('live: one event at a time, the diffs build exactly the parts partsOf gives', async () => {
    const chunks: UIMessageChunk[] = [];
    let sent: Segment[] = [];
    for (let n = 1; n <= EVENTS.length; n++) {
      const next = segmentsAt(n);
      chunks.push(...chunksBetween(sent, next));
      sent = next;
    }
    expect(chunks.some((c) => c.type === 'reset-step')).toBe(false);
    const message = await read(chunks);
    expect(message.parts).toEqual(partsOf(segmentsAt(EVENTS.length)));
    expect(message.parts).toEqual([
      { type: 'reasoning', id: 'rs1', text: 'Think first.', state: 'done' },
      {
        type: 'dynamic-tool',
        toolName: 'get_time',
        toolCallId: 'c1',
        state: 'output-available',
        input: { timezone: 'UTC' },
        output: { now: '12:00' },
      },
      { type: 'text', text: 'It is noon.', state: 'done' },
    ]);
  });

  it('a resume mid-text restates the fold in one delta per part, then only what is new', () => {
    const atCut = segmentsAt(12); // "It is " of the text streamed
    expect(chunksFor(atCut).filter((c) => c.type === 'text-delta')).toEqual([
      { type: 'text-delta', id: 'm2', delta: 'It is ' },
    ]);
    expect(chunksBetween(atCut, segmentsAt(14))).toEqual([
      { type: 'text-delta', id: 'm2', delta: 'noon.' },
      { type: 'text-end', id: 'm2' },
    ]);
  });

  it('a state that does not extend what was sent resets the message: no part twice', async () => {
    const sent = segmentsAt(13);
    const replaced: Segment[] = [{ kind: 'text', id: 'other', text: 'Replaced.', open: false }];
    const chunks = [...chunksFor(sent), ...chunksBetween(sent, replaced)];
    expect(chunksBetween(sent, replaced)[0]).toEqual({ type: 'reset-step' });
    const message = await read(chunks);
    expect(message.parts).toEqual([{ type: 'text', text: 'Replaced.', state: 'done' }]);
  });

  it('unparseable tool arguments end the part as an input error, as partsOf shows it', async () => {
    const segments: Segment[] = [
      { kind: 'tool', id: 'c9', name: 'f', args: '{"a":', open: false, result: { content: '1' } },
    ];
    const message = await read(chunksFor(segments));
    expect(message.parts).toEqual(partsOf(segments));
    expect(message.parts[0]).toMatchObject({ state: 'output-error', input: '{"a":' });
  });
});
