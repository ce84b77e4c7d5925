/**
 * The chat against a hostile server (issue #10): history paging, stored outbox items, and
 * requests left open by a chat that went away. Each case ends in the exact result within
 * a bounded time and number of requests, with no unhandled rejection.
 */

import type { IncomingMessage } from 'node:http';
import { messageText } from '@resumable/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatSession } from '../src/core/chat.js';
import { createManualSignal } from '../src/core/env.js';
import { ResumableClient } from '../src/core/registry.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/storage.js';
import { HostileServer, THREAD, TOKEN } from './hostile-server.js';
import { waitFor } from './util.js';

const FAST = {
  backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
  heartbeatMs: 100,
  requestTimeoutMs: 2000,
  maxAttemptsWithoutProgress: 5,
  stableAfterMs: 1000,
};
const BOUND_MS = 3000;

let server: HostileServer;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
const stops: (() => void)[] = [];

beforeAll(() => {
  process.on('unhandledRejection', onRejection);
});
afterAll(() => {
  process.off('unhandledRejection', onRejection);
});
beforeEach(async () => {
  server = await new HostileServer().start();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await server.close();
  expect(rejections).toEqual([]);
});

/** A client of the hostile server with the fast bounds, its own signals, warnings dropped. */
function chatClient(storage: RecordStorage = createMemoryStorage()): ResumableClient {
  return new ResumableClient({
    ...FAST,
    endpoint: server.url,
    storage,
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
}

/** Chat `c` of THREAD: no thread stream, no other tabs (only the requests counted here). */
function threadChat(storage?: RecordStorage): ChatSession {
  return chatClient(storage).chatSession('c', {
    threadId: THREAD,
    token: TOKEN,
    followThread: false,
    shareTabs: false,
  });
}

const shown = (chat: ChatSession) =>
  chat.getState().messages.map((m) => `${m.role}: ${messageText(m)}`);

const msg = (id: string) => ({ id, role: 'user', content: id });
const beforeOf = (req: IncomingMessage) =>
  new URL(req.url ?? '/', 'http://x').searchParams.get('before');

describe('load older against pages that do not move older', () => {
  type Page = { messages: object[]; nextBefore: string | null };
  const newest: Page = { messages: [msg('m3'), msg('m4')], nextBefore: '3' };
  const cases: [string, (before: string | null) => Page, string[], number][] = [
    [
      'the same cursor again: the page shows once, then paging ends',
      (before) => (before ? { messages: [msg('m1'), msg('m2')], nextBefore: '3' } : newest),
      ['m1', 'm2', 'm3', 'm4'],
      2,
    ],
    [
      'a server ignoring `before` (the newest page every time): nothing appended, paging ends',
      () => newest,
      ['m3', 'm4'],
      2,
    ],
    [
      'a cursor that goes up: the page shows once, then paging ends',
      (before) => (before ? { messages: [msg('m1'), msg('m2')], nextBefore: '7' } : newest),
      ['m1', 'm2', 'm3', 'm4'],
      2,
    ],
    [
      'an opaque cursor answered again: the page shows once, then paging ends',
      (before) =>
        before
          ? { messages: [msg('m1'), msg('m2')], nextBefore: 'c' }
          : { ...newest, nextBefore: 'c' },
      ['m1', 'm2', 'm3', 'm4'],
      2,
    ],
    [
      'overlapping pages: each message once, paging goes on to the root',
      (before) =>
        before === '3'
          ? { messages: [msg('m2'), msg('m3'), msg('m2')], nextBefore: '2' }
          : before === '2'
            ? { messages: [msg('m1'), msg('m2')], nextBefore: null }
            : newest,
      ['m1', 'm2', 'm3', 'm4'],
      3,
    ],
  ];
  for (const [what, page, ids, requests] of cases) {
    it(what, async () => {
      server.handler = (hit, req, res) =>
        hit.route === 'history' && server.json(res, 200, page(beforeOf(req)));
      const chat = threadChat();
      stops.push(chat.retain());
      await waitFor(() => shown(chat).length === 2, 'the newest page', BOUND_MS);
      for (let i = 0; i < 4; i++) await chat.loadOlder();
      expect(chat.getState().history.map((m) => m.id)).toEqual(ids);
      expect(shown(chat)).toEqual(ids.map((id) => `user: ${id}`));
      expect(chat.getState().hasOlder).toBe(false);
      expect(chat.getState().error).toBeNull();
      expect(server.count('history')).toBe(requests);
    });
  }
});
