/**
 * The AI SDK adapter (`ResumableChatTransport`, the AI SDK's real `Chat` as `useChat`
 * holds it) against a hostile server (issue #10): a read the AI SDK aborts closes at once;
 * wrong shapes, huge pages and a run that never progresses end in a typed result within a
 * bounded time and number of requests — never a throw out of the stream, a hang or a loop.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Chat } from '@ai-sdk/react';
import { foldLog, toEnvelopes } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResumableChatTransport } from '../src/ai-sdk/index.js';
import { recordOf } from '../src/core/records/record-write.js';
import { runRecordKey } from '../src/core/records/run-record.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { openTransport } from './ai-sdk-util.js';
import { HostileServer, RUN, storedChat, THREAD, TOKEN } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';
import { waitFor } from './util.js';

const MAX_STALE = 5;
const BOUND_MS = 3000;
/** A read the AI SDK aborts closes within this (its timeout is 2000 ms). */
const CLOSE_MS = 500;

let server: HostileServer;
let transports: ResumableChatTransport[] = [];
trackRejections();
beforeEach(async () => {
  server = await new HostileServer().start();
  // The thread: no runs, its stream's resume point 0, and no thread stream (404
  // `not_found`: the chat's follower stops for good) — the reads counted are the adapter's.
  server.handler = (hit, _req, res) =>
    hit.route === 'thread' && server.json(res, 200, { threadId: THREAD, runs: [], lastOffset: 0 });
});
afterEach(async () => {
  for (const t of transports) t.close();
  await Promise.all(transports.map((t) => t.closing()));
  transports = [];
  await server.close();
});

/** A storage holding chat `c` of THREAD and its run record: RUN after its first `upTo` events. */
async function storedRun(upTo = server.events.length): Promise<RecordStorage> {
  const storage = await storedChat({ outbox: [] });
  const state = foldLog(toEnvelopes(server.events.slice(0, upTo)));
  const record = recordOf('c', state, { runId: RUN, threadId: THREAD, token: TOKEN }, Date.now());
  await storage.update(runRecordKey('c'), () => record);
  return storage;
}

function open(storage: RecordStorage): ResumableChatTransport {
  const t = openTransport(server.url, {
    storage,
    backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
    requestTimeoutMs: 2000,
    heartbeatMs: 100,
    maxAttemptsWithoutProgress: MAX_STALE,
  });
  transports.push(t);
  return t;
}

/** Requests of `route` held open from now on; when each one's connection closed. */
function hangFrom(route: string): { closed: number[]; hung: () => number } {
  const closed: number[] = [];
  let hung = 0;
  const previous = server.handler;
  server.handler = (hit, req: IncomingMessage, res: ServerResponse) => {
    if (hit.route !== route) return previous(hit, req, res);
    hung++;
    res.on('close', () => closed.push(Date.now()));
    return server.hang(res);
  };
  return { closed, hung: () => hung };
}

/**
 * The chat's own first reads are done: its history page, its thread's runs, and its thread
 * stream's resume point and (refused) stream.
 */
async function loaded(t: ResumableChatTransport): Promise<void> {
  const chat = t.session('c');
  await waitFor(
    () =>
      chat.getState().hydrated &&
      server.count('history') === 1 &&
      server.count('thread') === 2 &&
      server.count('other') === 1,
    'the chat loaded',
    BOUND_MS,
  );
  await new Promise((r) => setTimeout(r, 50));
  expect(server.hits.length).toBe(4);
}

describe('reads the AI SDK aborts', () => {
  it("useChat's stop while resumeStream asks GET /threads/{id} (nothing to resume here): the read closes at once, the chat is ready", async () => {
    const t = open(await storedRun());
    await loaded(t);
    const { closed, hung } = hangFrom('thread');
    const chat = new Chat({ id: 'c', transport: t });
    const resuming = chat.resumeStream();
    await waitFor(() => hung() === 1, 'the thread read', BOUND_MS);
    const at = Date.now();
    await chat.stop();
    await resuming;
    await waitFor(() => closed.length === 1, 'the read closed', BOUND_MS);
    expect(closed[0]! - at).toBeLessThan(CLOSE_MS);
    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(chat.messages).toEqual([]);
    expect(hung()).toBe(1);
  });

  it('reconnectToStream aborted while the read hangs: null at once, the read closed', async () => {
    const t = open(await storedRun());
    await loaded(t);
    const { closed, hung } = hangFrom('thread');
    const controller = new AbortController();
    const reconnect = t.reconnectToStream({ chatId: 'c', abortSignal: controller.signal });
    await waitFor(() => hung() === 1, 'the thread read', BOUND_MS);
    const at = Date.now();
    controller.abort();
    expect(await reconnect).toBeNull();
    expect(Date.now() - at).toBeLessThan(CLOSE_MS);
    await waitFor(() => closed.length === 1, 'the read closed', BOUND_MS);
    expect(closed[0]! - at).toBeLessThan(CLOSE_MS);
  });

  it('loadMessages aborted while the history page hangs: the read closes at once, the stored exchange is given', async () => {
    const t = open(await storedRun());
    await loaded(t);
    const { closed, hung } = hangFrom('history');
    const controller = new AbortController();
    const loading = t.loadMessages('c', 50, controller.signal);
    await waitFor(() => hung() === 1, 'the history read', BOUND_MS);
    const at = Date.now();
    controller.abort();
    const messages = await loading;
    expect(Date.now() - at).toBeLessThan(CLOSE_MS);
    await waitFor(() => closed.length === 1, 'the read closed', BOUND_MS);
    expect(closed[0]! - at).toBeLessThan(CLOSE_MS);
    expect(messages.map((m) => [m.id, m.role, m.parts])).toEqual([
      [
        RUN,
        'assistant',
        [{ type: 'text', text: 'Whole answers, exactly once, never stuck.', state: 'done' }],
      ],
    ]);
  });
});

describe('a server answering the wrong shapes', () => {
  const history = (messages: unknown[]) => {
    server.handler = (hit, _req, res) =>
      hit.route === 'thread'
        ? server.json(res, 200, { threadId: THREAD, runs: [], lastOffset: 0 })
        : hit.route === 'history' && server.json(res, 200, { messages, nextBefore: null });
  };
  const reply = [
    RUN,
    'assistant',
    [{ type: 'text', text: 'Whole answers, exactly once, never stuck.', state: 'done' }],
  ];
  const shown = (messages: { id: string; role: string; parts: unknown[] }[]) =>
    messages.map((m) => [m.id, m.role, m.parts]);

  it('history entries of the wrong type: each dropped, the rest shown, no throw', async () => {
    history([
      null,
      5,
      'text',
      { id: 7, role: 'user', content: 'no string id' },
      { id: 'h1', role: 'user', content: 'hi' },
      { id: 'h2', role: 'assistant', content: 'calls that are a string', toolCalls: 'nope' },
      { id: 'h3', role: 'assistant', content: 'a call that is null', toolCalls: [null] },
      {
        id: 'h4',
        role: 'assistant',
        content: 'a call without function',
        toolCalls: [{ id: 'c1' }],
      },
      { id: 'h5', role: 'assistant', content: 'ok' },
    ]);
    const t = open(await storedRun());
    expect(shown(await t.loadMessages('c'))).toEqual([
      ['h1', 'user', [{ type: 'text', text: 'hi' }]],
      ['h5', 'assistant', [{ type: 'text', text: 'ok', state: 'done' }]],
      reply,
    ]);
  });

  it('a page far over the limit asked (a server ignoring `limit`): only the newest `limit` entries', async () => {
    history(
      Array.from({ length: 4000 }, (_, i) =>
        i % 2 === 0
          ? { id: `q${i / 2}`, role: 'user', content: `q${i / 2}` }
          : { id: `r${(i - 1) / 2}`, role: 'assistant', content: `r${(i - 1) / 2}` },
      ),
    );
    const t = open(await storedRun());
    const loaded = await t.loadMessages('c', 6);
    expect(shown(loaded)).toEqual([
      ['q1997', 'user', [{ type: 'text', text: 'q1997' }]],
      ['r1997', 'assistant', [{ type: 'text', text: 'r1997', state: 'done' }]],
      ['q1998', 'user', [{ type: 'text', text: 'q1998' }]],
      ['r1998', 'assistant', [{ type: 'text', text: 'r1998', state: 'done' }]],
      ['q1999', 'user', [{ type: 'text', text: 'q1999' }]],
      ['r1999', 'assistant', [{ type: 'text', text: 'r1999', state: 'done' }]],
      reply,
    ]);
  });

  it('a run whose stream never progresses: the resumed useChat ends in no_progress, requests bounded', async () => {
    const upTo = 3;
    server.handler = (hit, _req, res) => {
      if (hit.route === 'thread')
        return server.json(res, 200, {
          threadId: THREAD,
          runs: [{ runId: RUN, status: 'running' }],
          lastOffset: 0,
        });
      if (hit.route === 'snapshot') return server.json(res, 200, server.snapshot(upTo));
      if (hit.route !== 'events') return false;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(': nothing\n\n');
      return true;
    };
    const t = open(await storedRun(upTo));
    const chat = new Chat({ id: 'c', transport: t });
    const t0 = Date.now();
    await chat.resumeStream();
    await waitFor(() => chat.status === 'error', 'the error', BOUND_MS);
    expect(Date.now() - t0).toBeLessThan(BOUND_MS);
    expect(chat.error?.message).toBe(
      'no_progress: 5 attempts without progress (last: network: the stream closed before the run ended)',
    );
    expect(chat.messages.map((m) => m.role)).toEqual(['assistant']);
    // Then quiet: the run's stream given up (its attempts bounded), nothing asked again.
    await new Promise((r) => setTimeout(r, 300));
    const routes = server.hits.map((h) => h.route).sort();
    await new Promise((r) => setTimeout(r, 200));
    expect(server.hits.map((h) => h.route).sort()).toEqual(routes);
    // MAX_STALE attempts at the run's stream; the chat's own reads once each.
    expect(routes).toEqual([
      'events',
      'events',
      'events',
      'events',
      'events',
      'history',
      'other',
      'thread',
      'thread',
    ]);
  });
});

describe('a thread stream that never progresses under a followed useChat', () => {
  it('the follower gives up after its bound; the Chat stays ready with its messages, nothing thrown', async () => {
    server.handler = (hit, req, res) => {
      if (hit.route === 'thread')
        return server.json(res, 200, { threadId: THREAD, runs: [], lastOffset: 0 });
      if (hit.route !== 'other' || !/\/threads\/[^/]+\/events/.test(req.url ?? '')) return false;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(': nothing\n\n');
      return true;
    };
    const t = open(await storedRun());
    const chat = new Chat({ id: 'c', transport: t, messages: await t.loadMessages('c') });
    const unfollow = t.follow(chat);
    // Then quiet: the thread stream given up, nothing asked again.
    await waitFor(() => server.count('other') >= MAX_STALE, 'the attempts', BOUND_MS);
    await new Promise((r) => setTimeout(r, 300));
    const n = server.hits.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(server.hits.length).toBe(n);
    expect(server.count('other')).toBe(MAX_STALE + 1);
    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => [m.id, m.role])).toEqual([[RUN, 'assistant']]);
    unfollow();
  });
});
