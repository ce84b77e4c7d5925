import { describe, expect, it } from 'vitest';
import { chunk, useOpenAIServer } from './fake-upstream.js';
import { bearer, logOf, postRun } from './helpers.js';

describe('openaiAgent: client-declared tools are client_tool interrupts', () => {
  const stack = useOpenAIServer();

  it("the run ends client_tool; the browser's result goes to the model as a tool message", async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_g',
              type: 'function',
              function: { name: 'get_location', arguments: '{}' },
            },
          ],
        }),
      );
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
    const tools = [{ name: 'get_location', description: 'Where the browser is' }];
    const { json: asked } = await postRun(stack.server.url, {
      messages: [{ id: 'u1', role: 'user', content: 'Where am I?' }],
      tools,
    });
    const log = await logOf(stack.server, asked.runId, asked.token);
    expect(log.at(-1)).toEqual({
      type: 'RUN_FINISHED',
      threadId: asked.threadId,
      runId: asked.runId,
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'tool-call_g',
            reason: 'client_tool',
            toolCallId: 'call_g',
            message: 'Run get_location in the page',
          },
        ],
      },
    });
    const run = await (
      await fetch(`${stack.server.url}/runs/${asked.runId}`, { headers: bearer(asked.token) })
    ).json();
    expect(run.interrupts[0].status).toBe('open');

    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(`${chunk({ content: 'Oslo.' }, 'stop')}data: [DONE]\n\n`);
    });
    const { status, json: next } = await postRun(
      stack.server.url,
      {
        threadId: asked.threadId,
        messages: [],
        tools,
        resume: [
          { interruptId: 'tool-call_g', status: 'resolved', payload: { result: { city: 'Oslo' } } },
        ],
      },
      bearer(asked.token),
    );
    expect(status).toBe(201);
    const after = await logOf(stack.server, next.runId, asked.token);
    const messageId = `msg-${next.runId}`;
    expect(after).toEqual([
      { type: 'RUN_STARTED', threadId: asked.threadId, runId: next.runId },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'result-call_g',
        toolCallId: 'call_g',
        role: 'tool',
        content: '{"city":"Oslo"}',
      },
      { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'Oslo.' },
      { type: 'TEXT_MESSAGE_END', messageId },
      {
        type: 'RUN_FINISHED',
        threadId: asked.threadId,
        runId: next.runId,
        outcome: { type: 'success' },
      },
    ]);
    const request = stack.upstream.requests.at(-1)!.body as { messages: unknown[] };
    expect(request.messages).toEqual([
      { role: 'user', content: 'Where am I?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_g', type: 'function', function: { name: 'get_location', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_g', content: '{"city":"Oslo"}' },
    ]);
  });
});
