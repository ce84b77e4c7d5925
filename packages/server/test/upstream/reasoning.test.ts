import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chunk } from '../fake-upstream.js';
import { bearer, logOf, postRun } from '../helpers.js';
import { failed, openaiStack, reasoningMessage, runToEnd, textMessage } from './harness.js';

/** A reasoning model's answers: its thinking is a reasoning message, never model input. */
const sse = (res: ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/event-stream' });

/** An upstream streaming these frames, then `[DONE]`; a server running against it. */
const stream = (...frames: string[]) =>
  openaiStack(
    (_req, _body, res) => {
      sse(res);
      for (const frame of frames) res.write(frame);
      res.end('data: [DONE]\n\n');
    },
    { timeoutMs: 5_000, idleTimeoutMs: 2_000 },
  );

const runIds = (run: { threadId: string; runId: string }) => ({
  started: { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
  finished: {
    type: 'RUN_FINISHED',
    threadId: run.threadId,
    runId: run.runId,
    outcome: { type: 'success' },
  },
  text: `msg-${run.runId}`,
  reasoning: (n: number) => `reasoning-${run.runId}-${n}`,
});

describe('reasoning models: reasoning_content / reasoning deltas', () => {
  it('reasoning_content then text: a reasoning message, ended before the answer starts', async () => {
    const { server } = await stream(
      chunk({ role: 'assistant', content: null, reasoning_content: 'Nine point ' }),
      chunk({ content: '', reasoning_content: 'eleven is less.' }),
      // The turn to the answer: vLLM and DeepSeek send empty or null fields around it.
      chunk({ content: null, reasoning_content: '' }),
      chunk({ content: '9.8', reasoning_content: null }),
      chunk({ content: ' is greater.' }),
      chunk({}, 'stop'),
    );
    const { run, log } = await runToEnd(server);
    const ids = runIds(run);
    expect(log).toEqual([
      ids.started,
      ...reasoningMessage(ids.reasoning(1), ['Nine point ', 'eleven is less.']),
      ...textMessage(ids.text, ['9.8', ' is greater.']),
      ids.finished,
    ]);
  });

  it('reasoning only, then finish (OpenRouter `reasoning` with reasoning_details): ended at the end', async () => {
    const details = (text: string) => [{ type: 'reasoning.text', text, format: 'unknown' }];
    const { server } = await stream(
      chunk({
        role: 'assistant',
        content: '',
        reasoning: 'Hmm',
        reasoning_details: details('Hmm'),
      }),
      chunk({ content: '', reasoning: ', nothing to say.', reasoning_details: details('!') }),
      chunk({ content: '' }, 'stop'),
    );
    const { run, log } = await runToEnd(server);
    const ids = runIds(run);
    expect(log).toEqual([
      ids.started,
      ...reasoningMessage(ids.reasoning(1), ['Hmm', ', nothing to say.']),
      ids.finished,
    ]);
  });

  it('a server sending both names with the same text: one delta each, reasoning_content taken', async () => {
    const { server } = await stream(
      chunk({ reasoning_content: 'Same', reasoning: 'Same' }),
      chunk({ reasoning_content: 'text.', reasoning: 'text.' }),
      chunk({ content: 'Ok' }, 'stop'),
    );
    const { run, log } = await runToEnd(server);
    const ids = runIds(run);
    expect(log).toEqual([
      ids.started,
      ...reasoningMessage(ids.reasoning(1), ['Same', 'text.']),
      ...textMessage(ids.text, ['Ok']),
      ids.finished,
    ]);
  });

  it('reasoning interleaved with tool calls: each stretch of thinking is a message of its own', async () => {
    const call = (index: number, fn: Record<string, string>, id?: string) => ({
      tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: fn }],
    });
    const { server } = await stream(
      chunk({ reasoning_content: 'Need the weather.' }),
      chunk(call(0, { name: 'weather', arguments: '{"city":' }, 'call_a')),
      chunk(call(0, { arguments: '"Lyon"}' })),
      chunk({ reasoning_content: 'And the time.' }),
      chunk(call(1, { name: 'time', arguments: '{}' }, 'call_b')),
      chunk({}, 'tool_calls'),
    );
    const { run, log } = await runToEnd(server);
    const ids = runIds(run);
    const start = (toolCallId: string, toolCallName: string) => ({
      type: 'TOOL_CALL_START',
      toolCallId,
      toolCallName,
      parentMessageId: ids.text,
    });
    const interrupt = (toolCallId: string, name: string) => ({
      id: `tool-${toolCallId}`,
      reason: 'client_tool',
      toolCallId,
      message: `Run ${name} in the page`,
    });
    expect(log).toEqual([
      ids.started,
      ...reasoningMessage(ids.reasoning(1), ['Need the weather.']),
      start('call_a', 'weather'),
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '{"city":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '"Lyon"}' },
      ...reasoningMessage(ids.reasoning(2), ['And the time.']),
      start('call_b', 'time'),
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_b', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call_a' },
      { type: 'TOOL_CALL_END', toolCallId: 'call_b' },
      {
        ...ids.finished,
        outcome: {
          type: 'interrupt',
          interrupts: [interrupt('call_a', 'weather'), interrupt('call_b', 'time')],
        },
      },
    ]);
  });

  it.each([
    [{ reasoning_content: 42 }, '"delta.reasoning_content" that is a number'],
    [{ reasoning: { text: 'hmm' } }, '"delta.reasoning" that is an object'],
    [{ reasoning_content: 'fine', reasoning: ['a'] }, '"delta.reasoning" that is an array'],
  ])('reasoning of the wrong type (%j) ends upstream_failed, naming it', async (delta, problem) => {
    const { server, what } = await stream(chunk(delta), chunk({ content: 'never' }, 'stop'));
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} sent a ${problem}, not text`));
  });

  it('the next turn sends the answer back, never the reasoning', async () => {
    const { server, upstream } = await stream(
      chunk({ reasoning_content: 'Secret thoughts.' }),
      chunk({ content: 'Answer.' }, 'stop'),
    );
    const first = await runToEnd(server);
    const history = await fetch(`${server.url}/threads/${first.run.threadId}/messages`, {
      headers: bearer(first.run.token),
    });
    // The thread keeps the reasoning (the UI shows it) …
    expect(
      ((await history.json()) as { messages: Array<Record<string, unknown>> }).messages.map(
        ({ id, role, content }) => ({ id, role, content }),
      ),
    ).toEqual([
      { id: 'u1', role: 'user', content: 'go' },
      { id: `reasoning-${first.run.runId}-1`, role: 'reasoning', content: 'Secret thoughts.' },
      { id: `msg-${first.run.runId}`, role: 'assistant', content: 'Answer.' },
    ]);
    // … and a client that sends it back (as AG-UI clients send their whole history).
    const { status, json: second } = await postRun(
      server.url,
      {
        threadId: first.run.threadId,
        messages: [
          { id: 'r0', role: 'reasoning', content: 'Client-side thoughts.' },
          { id: 'u2', role: 'user', content: 'And?' },
        ],
      },
      bearer(first.run.token),
    );
    expect(status).toBe(201);
    await logOf(server, second.runId, first.run.token);
    expect(upstream.bodies).toHaveLength(2);
    expect((upstream.bodies[1] as { messages: unknown }).messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Answer.' },
      { role: 'user', content: 'And?' },
    ]);
  });
});
