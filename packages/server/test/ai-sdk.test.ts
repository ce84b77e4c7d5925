import { isStepCount, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkAgent } from '../src/ai-sdk/index.js';
import { finish, type Part, serveSwappableAgent, stream } from './ai-sdk-mock.js';
import { bearer, postRun, prompt, readEvents, waitFor } from './helpers.js';

const stack = serveSwappableAgent();
const logOf = stack.logOf;

async function snapshotOf(runId: string, token: string) {
  return (await fetch(`${stack.server.url}/runs/${runId}`, { headers: bearer(token) })).json();
}

describe('aiSdkAgent over a real server, with the AI SDK mock model', () => {
  it('streams reasoning, text, a tool call with streamed input, its result and a second step', async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        stream([
          { type: 'stream-start', warnings: [] },
          { type: 'response-metadata', id: 'r1', modelId: 'mock-1' },
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'Weather needs ' },
          { type: 'reasoning-delta', id: 'r', delta: 'a lookup.' },
          { type: 'reasoning-end', id: 'r' },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Let me ' },
          { type: 'text-delta', id: 't', delta: 'check.' },
          { type: 'text-end', id: 't' },
          { type: 'tool-input-start', id: 'call-1', toolName: 'weather' },
          { type: 'tool-input-delta', id: 'call-1', delta: '{"city":' },
          { type: 'tool-input-delta', id: 'call-1', delta: '"Lyon"}' },
          { type: 'tool-input-end', id: 'call-1' },
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'weather',
            input: '{"city":"Lyon"}',
          },
          finish('tool-calls'),
        ]),
        stream([
          { type: 'response-metadata', id: 'r2', modelId: 'mock-1' },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Sunny, 21°C.' },
          { type: 'text-end', id: 't' },
          finish(),
        ]),
      ],
    });
    stack.agent = aiSdkAgent(
      ({ instructions, messages, signal }) =>
        streamText({
          model,
          instructions,
          messages,
          abortSignal: signal,
          stopWhen: isStepCount(2),
          tools: {
            weather: tool({
              inputSchema: z.object({ city: z.string() }),
              execute: async ({ city }) => ({ city, sky: 'sunny', celsius: 21 }),
            }),
          },
        }),
      { provider: 'mock' },
    );
    const { json: run } = await postRun(stack.server.url, prompt('Weather in Lyon?'));
    const { runId, threadId } = run;
    const m1 = `msg-${runId}`;
    const m2 = `msg-${runId}-2`;
    const r1 = `reasoning-${runId}-1`;
    const result = '{"city":"Lyon","sky":"sunny","celsius":21}';
    expect(await logOf(runId, run.token)).toEqual([
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'REASONING_START', messageId: r1 },
      { type: 'REASONING_MESSAGE_START', messageId: r1, role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: r1, delta: 'Weather needs ' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: r1, delta: 'a lookup.' },
      { type: 'REASONING_MESSAGE_END', messageId: r1 },
      { type: 'REASONING_END', messageId: r1 },
      { type: 'TEXT_MESSAGE_START', messageId: m1, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'Let me ' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'check.' },
      { type: 'TEXT_MESSAGE_END', messageId: m1 },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call-1',
        toolCallName: 'weather',
        parentMessageId: m1,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-1', delta: '{"city":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-1', delta: '"Lyon"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call-1' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'result-call-1',
        toolCallId: 'call-1',
        content: result,
        role: 'tool',
      },
      { type: 'TEXT_MESSAGE_START', messageId: m2, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: m2, delta: 'Sunny, 21°C.' },
      { type: 'TEXT_MESSAGE_END', messageId: m2 },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId,
        outcome: { type: 'success' },
        // Both steps: 2 × 12 in, 2 × 30 out (8 of them reasoning).
        usage: [
          {
            provider: 'mock',
            model: 'mock-1',
            inputTokens: 24,
            outputTokens: 60,
            totalTokens: 84,
            reasoningTokens: 16,
          },
        ],
      },
    ]);
    expect(await snapshotOf(runId, run.token)).toEqual({
      runId,
      threadId,
      status: 'finished',
      lastOffset: 20,
      messages: [
        { id: r1, role: 'reasoning', content: 'Weather needs a lookup.' },
        {
          id: m1,
          role: 'assistant',
          content: 'Let me check.',
          toolCalls: [
            {
              id: 'call-1',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Lyon"}' },
            },
          ],
        },
        { id: 'result-call-1', role: 'tool', toolCallId: 'call-1', content: result },
        { id: m2, role: 'assistant', content: 'Sunny, 21°C.' },
      ],
      outcome: { type: 'success' },
    });
  });

  it('gives the model the AG-UI history and client tools; a client tool call ends the run with a client_tool interrupt', async () => {
    const model = new MockLanguageModelV4({
      doStream: stream([
        { type: 'tool-call', toolCallId: 'call-9', toolName: 'confirm', input: '{"ok":true}' },
        finish('tool-calls'),
      ]),
    });
    stack.agent = aiSdkAgent(({ instructions, messages, tools, signal }) =>
      streamText({ model, instructions, messages, tools, abortSignal: signal }),
    );
    const { json: run } = await postRun(stack.server.url, {
      messages: [
        { id: 's', role: 'system', content: 'Be brief.' },
        { id: 'u1', role: 'user', content: 'Book it' },
        {
          id: 'a1',
          role: 'assistant',
          content: 'Which day?',
          toolCalls: [
            { id: 'call-0', type: 'function', function: { name: 'pick_day', arguments: '{}' } },
          ],
        },
        { id: 't1', role: 'tool', toolCallId: 'call-0', content: 'Friday' },
      ],
      tools: [
        {
          name: 'confirm',
          description: 'Asks the user to confirm',
          parameters: { type: 'object', properties: { ok: { type: 'boolean' } } },
        },
      ],
      context: [{ description: 'city', value: 'Lyon' }],
    });
    const { runId, threadId } = run;
    expect(await logOf(runId, run.token)).toEqual([
      { type: 'RUN_STARTED', threadId, runId },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call-9',
        toolCallName: 'confirm',
        parentMessageId: `msg-${runId}`,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-9', delta: '{"ok":true}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call-9' },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId,
        outcome: {
          type: 'interrupt',
          interrupts: [
            {
              id: 'tool-call-9',
              reason: 'client_tool',
              toolCallId: 'call-9',
              message: 'Run confirm in the page',
            },
          ],
        },
        usage: [
          {
            model: 'mock-model-id',
            inputTokens: 12,
            outputTokens: 30,
            totalTokens: 42,
            reasoningTokens: 8,
          },
        ],
      },
    ]);
    const call = model.doStreamCalls[0]!;
    expect(call.prompt).toEqual([
      { role: 'system', content: 'Be brief.\n\nContext:\n- city: Lyon' },
      { role: 'user', content: [{ type: 'text', text: 'Book it' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Which day?' },
          { type: 'tool-call', toolCallId: 'call-0', toolName: 'pick_day', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-0',
            toolName: 'pick_day',
            output: { type: 'text', value: 'Friday' },
          },
        ],
      },
    ]);
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'confirm',
        description: 'Asks the user to confirm',
        inputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    ]);
  });

  it('ends the run RUN_ERROR upstream_failed on an error mid-stream, keeping the text so far', async () => {
    const model = new MockLanguageModelV4({
      doStream: stream([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Half an ans' },
        { type: 'error', error: new Error('overloaded') },
        { type: 'text-delta', id: 't', delta: 'never seen' },
      ]),
    });
    stack.agent = aiSdkAgent(({ messages, signal }) =>
      // onError: the AI SDK logs stream errors to the console by default.
      streamText({ model, messages, abortSignal: signal, onError: () => {} }),
    );
    const { json: run } = await postRun(stack.server.url, prompt('Go'));
    const { runId, threadId } = run;
    const m1 = `msg-${runId}`;
    expect(await logOf(runId, run.token)).toEqual([
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'TEXT_MESSAGE_START', messageId: m1, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'Half an ans' },
      { type: 'RUN_ERROR', message: 'the model failed: overloaded', code: 'upstream_failed' },
    ]);
    expect(await snapshotOf(runId, run.token)).toEqual({
      runId,
      threadId,
      status: 'error',
      lastOffset: 4,
      messages: [{ id: m1, role: 'assistant', content: 'Half an ans', ended: 'error' }],
      error: { message: 'the model failed: overloaded', code: 'upstream_failed' },
    });
  });

  it('cancel aborts the provider call and ends the run cancelled', async () => {
    let providerSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        providerSignal = abortSignal;
        // A provider that streams two parts, then stays open until aborted.
        const body = new ReadableStream<Part>({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'Thinking aloud' });
            abortSignal?.addEventListener('abort', () => controller.error(abortSignal.reason));
          },
        });
        return { stream: body };
      },
    });
    stack.agent = aiSdkAgent(({ messages, signal }) =>
      streamText({ model, messages, abortSignal: signal }),
    );
    const { json: run } = await postRun(stack.server.url, prompt('Go'));
    const { runId, threadId } = run;
    const m1 = `msg-${runId}`;
    const live = await readEvents(
      `${stack.server.url}/runs/${runId}/events`,
      { headers: bearer(run.token) },
      3,
    );
    expect(live.frames.map((f) => f.offset)).toEqual([1, 2, 3]);
    expect(providerSignal?.aborted).toBe(false);
    const cancel = await fetch(`${stack.server.url}/runs/${runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect(cancel.status).toBe(202);
    await waitFor(() => providerSignal?.aborted === true, 5000);
    expect(await logOf(runId, run.token)).toEqual([
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'TEXT_MESSAGE_START', messageId: m1, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'Thinking aloud' },
      { type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'cancelled' } },
    ]);
    expect(await snapshotOf(runId, run.token)).toEqual({
      runId,
      threadId,
      status: 'cancelled',
      lastOffset: 4,
      messages: [{ id: m1, role: 'assistant', content: 'Thinking aloud', ended: 'stopped' }],
      outcome: { type: 'cancelled' },
    });
  });
});
