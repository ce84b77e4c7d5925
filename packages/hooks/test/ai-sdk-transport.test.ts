/**
 * `ResumableChatTransport` without React, against the real `@resumable/server` on
 * 127.0.0.1: what it refuses, what a refused prompt becomes, a tool call's parts, and the
 * stored conversation `loadMessages` gives back.
 */

import { Chat } from '@ai-sdk/react';
import { messageText, ResumableError } from '@resumable/protocol';
import { type RunningServer, startServer } from '@resumable/server';
import type { UIMessage, UIMessageChunk } from 'ai';
import { readUIMessageStream } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumableChatTransport } from '../src/ai-sdk/index.js';
import { partsOf, segmentsOf } from '../src/ai-sdk/index.js';
import { chatRecordKey } from '../src/core/chat/chat-record.js';
import type { RecordStorage } from '../src/core/index.js';
import { createManualSignal, createMemoryStorage } from '../src/core/index.js';
import { openTransport } from './ai-sdk-util.js';
import { waitFor } from './util.js';

let server: RunningServer;
let transports: ResumableChatTransport[] = [];
beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory' });
});
afterEach(async () => {
  for (const t of transports) t.close();
  await Promise.all(transports.map((t) => t.closing()));
  transports = [];
  await server.close();
});

/** A transport (a tab); tabs given the same `storage` share it as one origin's IndexedDB. */
function open(runInput?: Record<string, unknown>, storage: RecordStorage = createMemoryStorage()) {
  const transport = openTransport(server.url, { storage, ...(runInput ? { runInput } : {}) });
  transports.push(transport);
  return transport;
}

const prompt = (text: string): UIMessage[] => [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text }] },
];
const send = (t: ResumableChatTransport, text: string, trigger = 'submit-message' as const) =>
  t.sendMessages({
    trigger,
    chatId: 'c',
    messageId: undefined,
    messages: prompt(text),
    abortSignal: undefined,
  });

async function lastMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true })) last = m;
  if (!last) throw new Error('no message');
  return last;
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ResumableError ? e.code : String(e)),
  );

describe('ResumableChatTransport', () => {
  it('refuses regenerate and a prompt without text, before any request', async () => {
    const t = open();
    expect(
      await codeOf(
        t.sendMessages({
          trigger: 'regenerate-message',
          chatId: 'c',
          messageId: 'a1',
          messages: prompt('again'),
          abortSignal: undefined,
        }),
      ),
    ).toBe('bad_request');
    expect(await codeOf(send(t, '   '))).toBe('bad_request');
  });

  it("a prompt the server refuses fails sendMessages with the server's code", async () => {
    const t = open({ forwardedProps: ['not', 'an', 'object'] });
    expect(await codeOf(send(t, 'hello'))).toBe('bad_request');
  });

  it("a tool call: the message's text, then a dynamic-tool part with the server's input and output", async () => {
    const t = open({ forwardedProps: { script: { tokens: 20, tokensPerSecond: 0, seed: 1 } } });
    const message = await lastMessage(await send(t, 'what time is it?'));
    const run = t.session('c').run.getState();
    expect(run.status).toBe('finished');
    expect(message.id).toBe(run.runId);
    expect(message.parts).toEqual(partsOf(segmentsOf(run.messages)));
    // One AG-UI message holds both (the tool call came first): text first, by convention.
    expect(message.parts.map((p) => p.type)).toEqual(['text', 'dynamic-tool']);
    expect(message.parts[1]).toMatchObject({
      toolName: 'get_time',
      state: 'output-available',
      input: { timezone: 'UTC' },
    });
    const reply = run.messages.find((m) => m.role === 'assistant' && messageText(m) !== '');
    expect(message.parts[0]).toEqual({ type: 'text', text: messageText(reply!), state: 'done' });
  });

  it('loadMessages: the stored prompt and reply, the reply under its run id', async () => {
    const t = open({ forwardedProps: { script: { tokens: 30, tokensPerSecond: 0, seed: 2 } } });
    const streamed = await lastMessage(await send(t, 'hello there'));
    const loaded = await t.loadMessages('c');
    expect(loaded.map((m) => [m.role, m.id])).toEqual([
      ['user', expect.any(String)],
      ['assistant', streamed.id],
    ]);
    expect(loaded[0]!.parts).toEqual([{ type: 'text', text: 'hello there' }]);
    expect(loaded[1]!.parts).toEqual(streamed.parts);
    // Finished: nothing to resume.
    expect(await t.reconnectToStream({ chatId: 'c' })).toBeNull();
  });

  for (const how of ['timeout', 'abort'] as const) {
    it(`a prompt given up on offline (${how}) is taken back: back online, it is never POSTed`, async () => {
      const online = createManualSignal(false);
      const storage = createMemoryStorage();
      const posts: string[] = [];
      const t = openTransport(server.url, {
        storage,
        online,
        startTimeoutMs: 150,
        env: {
          fetch: (input, init) => {
            if (init?.method === 'POST' && String(input).endsWith('/runs'))
              posts.push(String(input));
            return globalThis.fetch(input, init);
          },
        },
      });
      transports.push(t);
      const controller = new AbortController();
      const sending = t.sendMessages({
        trigger: 'submit-message',
        chatId: 'c',
        messageId: undefined,
        messages: prompt('never mind'),
        abortSignal: controller.signal,
      });
      await waitFor(() => t.session('c').getState().outbox.length === 1, 'queued');
      if (how === 'abort') controller.abort();
      expect(await codeOf(sending)).toBe(how === 'timeout' ? 'timeout' : 'AbortError: aborted');
      await waitFor(() => t.session('c').getState().outbox.length === 0, 'taken back');
      await t.session('c').run.flush();
      expect((await storage.get(chatRecordKey('c'))) as unknown).toMatchObject({ outbox: [] });
      online.set(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(posts).toEqual([]);
      expect(t.session('c').getState().messages).toEqual([]);
    });
  }

  it('follow: an idle tab shows the prompt and the reply another tab started, live', async () => {
    const storage = createMemoryStorage();
    const script = { forwardedProps: { script: { tokens: 200, tokensPerSecond: 400, seed: 4 } } };
    const a = open(script, storage);
    const b = open(undefined, storage);
    const idle = new Chat({ id: 'c', transport: b });
    const unfollow = b.follow(idle);
    await waitFor(() => b.session('c').run.getState().hydrated, 'tab B hydrated');
    const sender = new Chat({ id: 'c', transport: a });
    const sent = sender.sendMessage({ text: 'from tab A' });
    await waitFor(() => idle.status === 'streaming', 'tab B streaming', 10_000);
    await sent;
    await waitFor(() => idle.status === 'ready', 'tab B done', 10_000);
    const runId = a.session('c').run.getState().runId;
    expect(sender.messages.map((m) => m.id).at(-1)).toBe(runId);
    expect(idle.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(idle.messages[0]!.parts).toEqual([{ type: 'text', text: 'from tab A' }]);
    expect(idle.messages[1]).toEqual(sender.messages[1]);
    expect(b.session('c').run.getState().status).toBe('finished');
    unfollow();
  });
});
