import { streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkAgent } from '../src/ai-sdk/index.js';
import type { Agent } from '../src/index.js';
import { finish, type Part, serveSwappableAgent, stream } from './ai-sdk-mock.js';
import { bearer, postRun, prompt } from './helpers.js';

const stack = serveSwappableAgent();
const logOf = stack.logOf;
const say = (text: string): Part[] => [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: text },
  { type: 'text-end', id: 't' },
  finish(),
];

/** An agent whose `delete_file` tool needs approval; records what it deleted. */
function approvalAgent(model: MockLanguageModelV4, deleted: string[]): Agent {
  return aiSdkAgent(({ instructions, messages, tools, signal }) =>
    streamText({
      model,
      instructions,
      messages,
      abortSignal: signal,
      tools: {
        ...tools,
        delete_file: tool({
          inputSchema: z.object({ path: z.string() }),
          needsApproval: true,
          execute: async ({ path }) => {
            deleted.push(path);
            return { deleted: path };
          },
        }),
      },
    }),
  );
}

const deleteCall: Part = {
  type: 'tool-call',
  toolCallId: 'call-d',
  toolName: 'delete_file',
  input: '{"path":"a.txt"}',
};

describe('aiSdkAgent: tools that need approval and client tools become interrupts', () => {
  it('needsApproval: the run ends tool_approval; approved, the SDK runs the tool and the model goes on', async () => {
    const model = new MockLanguageModelV4({
      doStream: [stream([deleteCall, finish('tool-calls')]), stream(say('Deleted a.txt.'))],
    });
    const deleted: string[] = [];
    stack.agent = approvalAgent(model, deleted);
    const { json: asked } = await postRun(stack.server.url, prompt('delete a.txt'));
    const log = await logOf(asked.runId, asked.token);
    expect(log.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: 'approval-call-d',
            reason: 'tool_approval',
            toolCallId: 'call-d',
            message: 'Run delete_file?',
          },
        ],
      },
    });
    expect(deleted).toEqual([]);

    const { status, json: next } = await postRun(
      stack.server.url,
      {
        threadId: asked.threadId,
        messages: [],
        resume: [
          { interruptId: 'approval-call-d', status: 'resolved', payload: { approved: true } },
        ],
      },
      bearer(asked.token),
    );
    expect(status).toBe(201);
    const after = await logOf(next.runId, asked.token);
    expect(deleted).toEqual(['a.txt']);
    expect(after.filter((e) => e.type === 'TOOL_CALL_RESULT')).toEqual([
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'result-call-d',
        toolCallId: 'call-d',
        role: 'tool',
        content: '{"deleted":"a.txt"}',
      },
    ]);
    expect(after.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta)).toEqual([
      'Deleted a.txt.',
    ]);
    expect(after.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // The model saw the call and the tool's result (the approval itself is the SDK's business).
    const prompt2 = model.doStreamCalls[1]!.prompt;
    expect(prompt2.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-d',
            toolName: 'delete_file',
            input: { path: 'a.txt' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-d',
            toolName: 'delete_file',
            output: { type: 'json', value: { deleted: 'a.txt' } },
          },
        ],
      },
    ]);
  });

  it('denied: the tool does not run, the model is told why', async () => {
    const model = new MockLanguageModelV4({
      doStream: [stream([deleteCall, finish('tool-calls')]), stream(say('Kept it.'))],
    });
    const deleted: string[] = [];
    stack.agent = approvalAgent(model, deleted);
    const { json: asked } = await postRun(stack.server.url, prompt('delete a.txt'));
    await logOf(asked.runId, asked.token);
    const { json: next } = await postRun(
      stack.server.url,
      {
        threadId: asked.threadId,
        messages: [],
        resume: [
          {
            interruptId: 'approval-call-d',
            status: 'resolved',
            payload: { approved: false, reason: 'keep it' },
          },
        ],
      },
      bearer(asked.token),
    );
    const after = await logOf(next.runId, asked.token);
    expect(deleted).toEqual([]);
    expect(after.find((e) => e.type === 'TOOL_CALL_RESULT')).toEqual({
      type: 'TOOL_CALL_RESULT',
      messageId: 'result-call-d',
      toolCallId: 'call-d',
      role: 'tool',
      content: '{"error":"denied"}',
    });
    const told = model.doStreamCalls[1]!.prompt.at(-1);
    expect(told).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-d',
          toolName: 'delete_file',
          output: { type: 'execution-denied', reason: 'keep it' },
        },
      ],
    });
  });

  it("a client tool: the browser's result reaches the model as the tool's result", async () => {
    const model = new MockLanguageModelV4({
      doStream: [
        stream([
          { type: 'tool-call', toolCallId: 'call-g', toolName: 'get_location', input: '{}' },
          finish('tool-calls'),
        ]),
        stream(say('You are in Oslo.')),
      ],
    });
    stack.agent = aiSdkAgent(({ instructions, messages, tools, signal }) =>
      streamText({ model, instructions, messages, tools, abortSignal: signal }),
    );
    const tools = [{ name: 'get_location', description: 'Where the browser is' }];
    const { json: asked } = await postRun(stack.server.url, { ...prompt('where am I'), tools });
    const log = await logOf(asked.runId, asked.token);
    expect((log.at(-1) as { outcome: unknown }).outcome).toEqual({
      type: 'interrupt',
      interrupts: [
        {
          id: 'tool-call-g',
          reason: 'client_tool',
          toolCallId: 'call-g',
          message: 'Run get_location in the page',
        },
      ],
    });
    const { json: next } = await postRun(
      stack.server.url,
      {
        threadId: asked.threadId,
        messages: [],
        tools,
        resume: [
          { interruptId: 'tool-call-g', status: 'resolved', payload: { result: { city: 'Oslo' } } },
        ],
      },
      bearer(asked.token),
    );
    const after = await logOf(next.runId, asked.token);
    expect(after[1]).toEqual({
      type: 'TOOL_CALL_RESULT',
      messageId: 'result-call-g',
      toolCallId: 'call-g',
      role: 'tool',
      content: '{"city":"Oslo"}',
    });
    expect(after.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta)).toEqual([
      'You are in Oslo.',
    ]);
    expect(model.doStreamCalls[1]!.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call-g',
          toolName: 'get_location',
          output: { type: 'json', value: { city: 'Oslo' } },
        },
      ],
    });
  });
});
