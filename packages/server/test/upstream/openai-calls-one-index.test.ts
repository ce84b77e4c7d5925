import { describe, expect, it } from 'vitest';
import { chunk, useOpenAIServer } from '../fake-upstream.js';
import { logOf, postRun } from '../helpers.js';

/**
 * Some OpenAI-compatible servers (older vLLM, Ollama, Gemini's compatibility endpoint) send
 * every parallel tool call at index 0, each with its own id. A new id at an index is a new
 * call: merged, the second call's arguments were glued onto the first's and its
 * interrupt never asked.
 */
describe('openaiAgent: tool calls that share index 0', () => {
  const stack = useOpenAIServer();
  const call = (id: string | undefined, name: string | undefined, args: string) => ({
    tool_calls: [
      {
        index: 0,
        ...(id === undefined ? {} : { id, type: 'function' }),
        function: { ...(name === undefined ? {} : { name }), arguments: args },
      },
    ],
  });
  const tools = [
    { name: 'get_location', description: 'Where the browser is' },
    { name: 'get_time', description: 'The browser clock' },
  ];

  it('a new id at an index starts a new call; deltas without an id continue the last', async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(chunk(call('call_a', 'get_location', '{"pre')));
      res.write(chunk(call(undefined, undefined, 'cise":true}')));
      res.write(chunk(call('call_b', 'get_time', '{}')));
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
    const { json: asked } = await postRun(stack.server.url, {
      messages: [{ id: 'u1', role: 'user', content: 'Where and when am I?' }],
      tools,
    });
    const log = await logOf(stack.server, asked.runId, asked.token);
    const parent = `msg-${asked.runId}`;
    expect(log.slice(1)).toEqual([
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call_a',
        toolCallName: 'get_location',
        parentMessageId: parent,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: '{"pre' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_a', delta: 'cise":true}' },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call_b',
        toolCallName: 'get_time',
        parentMessageId: parent,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_b', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call_a' },
      { type: 'TOOL_CALL_END', toolCallId: 'call_b' },
      {
        type: 'RUN_FINISHED',
        threadId: asked.threadId,
        runId: asked.runId,
        outcome: {
          type: 'interrupt',
          interrupts: [
            {
              id: 'tool-call_a',
              reason: 'client_tool',
              toolCallId: 'call_a',
              message: 'Run get_location in the page',
            },
            {
              id: 'tool-call_b',
              reason: 'client_tool',
              toolCallId: 'call_b',
              message: 'Run get_time in the page',
            },
          ],
        },
      },
    ]);
  });

  it('more calls at one index than maxToolCalls end the run upstream_failed', async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (let i = 0; i < 101; i++) res.write(chunk(call(`call_${i}`, 'get_time', '{}')));
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
    const { json: asked } = await postRun(stack.server.url, {
      messages: [{ id: 'u1', role: 'user', content: 'Time?' }],
      tools,
    });
    const log = await logOf(stack.server, asked.runId, asked.token);
    expect(log.filter((e) => (e as { type: string }).type === 'TOOL_CALL_START')).toHaveLength(100);
    expect(log.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'upstream_failed',
      message: expect.stringMatching(/101 tool calls \(at most 100: maxToolCalls\)$/),
    });
  });
});
