/**
 * The chat's history reads against a hostile server (issue #10): pages that do not move
 * older, entries that are not messages, and reads left open by a chat that went away. Each
 * case ends in the exact result within a bounded time and number of requests, with no
 * unhandled rejection.
 */

import type { IncomingMessage } from 'node:http';
import type { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { fetchTransport } from '../src/core/net/uploads.js';
import { uploadToChat } from '../src/core/uploads/upload-to-chat.js';
import {
  BOUND_MS,
  chatClient,
  fastBounds,
  hostileServerPerTest,
  server,
  shown,
  stops,
  threadChat,
  warnings,
} from './hostile-harness.js';
import { THREAD, TOKEN } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

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

describe('chat history pages of the wrong shape', () => {
  it('entries that are not messages are dropped: the page shows, no internal error', async () => {
    const good = { id: 'm1', role: 'user', content: 'hi' };
    server.handler = (hit, _req, res) =>
      hit.route === 'history' &&
      server.json(res, 200, {
        messages: [null, 7, good, { role: 'user', content: 'no id' }, { id: 'm2', role: 5 }],
        nextBefore: null,
      });
    const chat = chatClient(undefined, fastBounds(300)).chatSession('c', {
      threadId: THREAD,
      token: TOKEN,
    });
    stops.push(chat.retain());
    await waitFor(() => server.count('history') === 1 && !chat.getState().isLoadingOlder, 'page');
    await waitFor(
      () => chat.getState().messages.length > 0 || chat.getState().error !== null,
      'shown',
    );
    expect(chat.getState().error).toBeNull();
    expect(chat.getState().messages.map((m) => [m.id, m.role, m.content])).toEqual([
      ['m1', 'user', 'hi'],
    ]);
  });
});

describe('reads of a chat that was let go', () => {
  const CLOSE_MS = 500;
  /** When the server saw each hung request's connection close, by route. */
  function hangs(routes: readonly string[]): Map<string, number> {
    const closed = new Map<string, number>();
    server.handler = (hit, req, res) => {
      const route =
        req.method === 'POST' && /\/threads$/.test(req.url ?? '') ? 'create' : hit.route;
      if (!routes.includes(route) || (route !== 'create' && hit.n > 1)) return false;
      res.on('close', () => closed.set(route, Date.now()));
      return server.hang(res);
    };
    return closed;
  }
  const closedBy = async (closed: Map<string, number>, routes: string[]) => {
    await waitFor(() => routes.every((r) => closed.has(r)), 'the requests closed', BOUND_MS);
  };

  it('disposed while the history page and the active run hang: both closed at once, no warning', async () => {
    const closed = hangs(['history', 'thread']);
    const chat = threadChat();
    chat.retain();
    await waitFor(() => server.count('history') === 1 && server.count('thread') === 1, 'reads');
    const at = Date.now();
    chat.dispose();
    await closedBy(closed, ['history', 'thread']);
    expect(closed.get('history')! - at).toBeLessThan(CLOSE_MS);
    expect(closed.get('thread')! - at).toBeLessThan(CLOSE_MS);
    await new Promise((r) => setTimeout(r, 50));
    expect(chat.getState().error).toBeNull();
    expect(chat.getState().isLoadingOlder).toBe(false);
    expect(warnings).toEqual([]);
    expect(server.count('history')).toBe(1);
  });

  it('released while they hang: both closed at once; held again, both are read again and the page shows', async () => {
    const closed = hangs(['history', 'thread']);
    const chat = threadChat();
    const release = chat.retain();
    await waitFor(() => server.count('history') === 1 && server.count('thread') === 1, 'reads');
    const at = Date.now();
    release();
    await closedBy(closed, ['history', 'thread']);
    expect(closed.get('history')! - at).toBeLessThan(CLOSE_MS);
    expect(closed.get('thread')! - at).toBeLessThan(CLOSE_MS);
    server.handler = (hit, _req, res) =>
      hit.route === 'history' && server.json(res, 200, { messages: [msg('m1')], nextBefore: null });
    stops.push(chat.retain());
    await waitFor(() => shown(chat).length === 1, 'the page', BOUND_MS);
    expect(shown(chat)).toEqual(['user: m1']);
    expect(server.count('history')).toBe(2);
    expect(server.count('thread')).toBe(2);
    expect(chat.getState().error).toBeNull();
    expect(warnings).toEqual([]);
  });

  it('released while POST /threads (a first upload) hangs: closed at once, the upload fails with aborted', async () => {
    const closed = hangs(['create']);
    const chat = chatClient().chatSession('c', { followThread: false, shareTabs: false });
    const release = chat.retain();
    const upload = uploadToChat(chat, new Blob(['hello']), {
      transport: fetchTransport(fetch),
    }).then(
      () => 'uploaded',
      (error: ResumableError) => error.code,
    );
    await waitFor(() => server.hits.some((h) => h.method === 'POST'), 'POST /threads');
    const at = Date.now();
    release();
    await closedBy(closed, ['create']);
    expect(closed.get('create')! - at).toBeLessThan(CLOSE_MS);
    expect(await upload).toBe('aborted');
    expect(chat.getState().threadId).toBeNull();
  });
});
