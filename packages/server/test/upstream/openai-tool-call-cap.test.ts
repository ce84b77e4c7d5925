import { MAX_RESUME_ENTRIES } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { chunk, useOpenAIServer } from '../fake-upstream.js';
import { bearer, logOf, postRun } from '../helpers.js';

/**
 * openaiAgent's maxToolCalls defaults to 128 (cc5528c), but one POST /runs answers at most
 * MAX_RESUME_ENTRIES (100) interrupts and must answer every open one. A model making 101
 * parallel calls ends the run with interrupts no continuation can answer (the AG-UI proxy
 * refuses such an outcome as upstream_failed: outcome-check.ts).
 */
describe('openaiAgent: more tool calls than one answer can take', () => {
  const stack = useOpenAIServer();

  it('101 parallel calls: answering them all is accepted', async () => {
    const calls = 101;
    expect(MAX_RESUME_ENTRIES).toBe(100);
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const toolCalls = Array.from({ length: calls }, (_, i) => ({
        index: i,
        id: `call_${i}`,
        type: 'function',
        function: { name: 'get_location', arguments: '{}' },
      }));
      res.write(chunk({ tool_calls: toolCalls }));
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
    const tools = [{ name: 'get_location', description: 'Where the browser is' }];
    const { json: asked } = await postRun(stack.server.url, {
      messages: [{ id: 'u1', role: 'user', content: 'Where am I?' }],
      tools,
    });
    const log = await logOf(stack.server, asked.runId, asked.token);
    const end = log.at(-1) as { type: string; outcome?: { interrupts?: unknown[] } };
    // Either the run refuses the stream (like the AG-UI proxy) or its interrupts are answerable.
    if (end.type === 'RUN_ERROR') return;
    expect(end.outcome?.interrupts?.length).toBe(calls);
    const resume = Array.from({ length: calls }, (_, i) => ({
      interruptId: `tool-call_${i}`,
      status: 'resolved',
      payload: { result: i },
    }));
    const all = await postRun(
      stack.server.url,
      { threadId: asked.threadId, messages: [], tools, resume },
      bearer(asked.token),
    );
    // 400 today: "resume has 101 entries, over the limit of 100" (and 100 of them: 400,
    // "resume must answer every open interrupt"): only a new prompt, cancelling them, gets by.
    expect([all.status, all.json]).toEqual([
      201,
      expect.objectContaining({ runId: expect.any(String) }),
    ]);
  });
});
