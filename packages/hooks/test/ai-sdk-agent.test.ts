/**
 * The same AI SDK model answer seen two ways: streamed natively (`streamText` →
 * `toUIMessageStream()` → the AI SDK's reader, what `useChat` shows without Resumable) and
 * through Resumable (`aiSdkAgent` on the real server → AG-UI log → fold →
 * `ResumableChatTransport` → the AI SDK's real `Chat`). The parts must agree, but for the
 * two things the transport does on purpose: no `step-start` parts, tools as `dynamic-tool`.
 */
import { Chat } from '@ai-sdk/react';
import { type RunningServer, startServer } from '@resumable/server';
import { aiSdkAgent } from '@resumable/server/ai-sdk';
import type { UIMessage } from 'ai';
import { isStepCount, readUIMessageStream, simulateReadableStream, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import type { ResumableChatTransport } from '../src/ai-sdk/index.js';
import { openTransport } from './ai-sdk-util.js';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type Part = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 30, text: 22, reasoning: 8 },
};
const finish = (unified: 'stop' | 'tool-calls'): Part => ({
  type: 'finish',
  finishReason: { unified, raw: unified },
  usage,
});
const stream = (chunks: Part[]) => ({
  stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: 1 }),
});

/** Reasoning, text and a tool call with streamed input in step 1; the answer in step 2. */
function model() {
  return new MockLanguageModelV4({
    doStream: [
      stream([
        { type: 'stream-start', warnings: [] },
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
        { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Lyon"}' },
        finish('tool-calls'),
      ]),
      stream([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Sunny, ' },
        { type: 'text-delta', id: 't', delta: '21°C.' },
        { type: 'text-end', id: 't' },
        finish('stop'),
      ]),
    ],
  });
}

const tools = {
  weather: tool({
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, sky: 'sunny', celsius: 21 }),
  }),
};

/** The parts as a user sees them: kind, text or tool call, state. */
function shown(parts: UIMessage['parts']) {
  return parts.flatMap((p): Record<string, unknown>[] => {
    if (p.type === 'text' || p.type === 'reasoning')
      return [{ type: p.type, text: p.text, state: p.state }];
    if (p.type === 'dynamic-tool' || p.type.startsWith('tool-')) {
      const t = p as { toolCallId: string; state: string; input: unknown; output?: unknown };
      const toolName = p.type === 'dynamic-tool' ? p.toolName : p.type.slice('tool-'.length);
      return [
        {
          type: 'tool',
          toolName,
          toolCallId: t.toolCallId,
          state: t.state,
          input: t.input,
          output: t.output,
        },
      ];
    }
    return [];
  });
}

let server: RunningServer;
let transport: ResumableChatTransport | undefined;
beforeEach(async () => {
  server = await startServer({
    port: 0,
    store: 'memory',
    agent: aiSdkAgent(({ instructions, messages, signal }) =>
      streamText({
        model: model(),
        instructions,
        messages,
        abortSignal: signal,
        stopWhen: isStepCount(2),
        tools,
      }),
    ),
  });
});
afterEach(async () => {
  transport?.close();
  await transport?.closing();
  await server.close();
});

it('an AI SDK answer through Resumable shows the parts the AI SDK shows natively', async () => {
  const native = streamText({
    model: model(),
    prompt: 'Weather in Lyon?',
    stopWhen: isStepCount(2),
    tools,
  });
  let direct: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: native.toUIMessageStream() })) direct = m;

  transport = openTransport(server.url);
  const chat = new Chat({ id: 'weather', transport });
  await chat.sendMessage({ text: 'Weather in Lyon?' });
  expect(chat.status).toBe('ready');
  const reply = chat.messages.at(-1)!;
  expect(reply.id).toBe(transport.session('weather').run.getState().runId);

  expect(direct!.parts.map((p) => p.type)).toEqual([
    'step-start',
    'reasoning',
    'text',
    'tool-weather',
    'step-start',
    'text',
  ]);
  expect(shown(reply.parts)).toEqual(shown(direct!.parts));
  expect(shown(reply.parts)).toEqual([
    { type: 'reasoning', text: 'Weather needs a lookup.', state: 'done' },
    { type: 'text', text: 'Let me check.', state: 'done' },
    {
      type: 'tool',
      toolName: 'weather',
      toolCallId: 'call-1',
      state: 'output-available',
      input: { city: 'Lyon' },
      output: { city: 'Lyon', sky: 'sunny', celsius: 21 },
    },
    { type: 'text', text: 'Sunny, 21°C.', state: 'done' },
  ]);
});
