/**
 * The chat against a hostile server (issue #10): history paging, stored outbox items, and
 * requests left open by a chat that went away. Each case ends in the exact result within
 * a bounded time and number of requests, with no unhandled rejection.
 */

import type { IncomingMessage } from 'node:http';
import { isWireId, messageText, type ResumableError, runIdProblem } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatSession } from '../src/core/chat.js';
import { createManualSignal } from '../src/core/env.js';
import { ResumableClient } from '../src/core/registry.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/storage.js';
import { uploadToChat } from '../src/core/upload.js';
import { fetchTransport } from '../src/core/upload-transport.js';
import { HostileServer, storedChat, THREAD, TOKEN } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';
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
trackRejections();
const stops: (() => void)[] = [];

beforeEach(async () => {
  server = await new HostileServer().start();
  warnings = [];
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await server.close();
});

/** The chats' warnings in this test, in order. */
let warnings: ResumableError[] = [];

/** A client of the hostile server with the fast bounds, its own signals, warnings kept. */
function chatClient(storage: RecordStorage = createMemoryStorage()): ResumableClient {
  return new ResumableClient({
    ...FAST,
    endpoint: server.url,
    storage,
    onWarning: (w) => warnings.push(w),
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

describe('a stored outbox item whose resume the server would refuse', () => {
  /**
   * Chat `c` over a stored record holding `item`, and the bodies of its POSTs; the server
   * refuses any `resume` with 400 (as the real one refuses these) unless `refuse` is false.
   */
  async function storedItem(
    item: object,
    refuse = true,
  ): Promise<{ chat: ChatSession; bodies: unknown[] }> {
    const bodies: unknown[] = [];
    server.handler = (hit, req, res) => {
      if (hit.route !== 'start') return false;
      const body = JSON.parse((req as { body?: string }).body ?? '{}') as { resume?: unknown };
      bodies.push(body);
      return refuse && body.resume !== undefined && server.error(res, 400, 'bad_request');
    };
    const chat = threadChat(await storedChat({ outbox: [{ runId: 'o1', createdAt: 1, ...item }] }));
    stops.push(chat.retain());
    await waitFor(() => chat.getState().hydrated, 'the record read', BOUND_MS);
    return { chat, bodies };
  }
  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
  const answer = { interruptId: 'i1', status: 'resolved' };
  const bad: [string, unknown][] = [
    ['a number', 5],
    ['an object', { interruptId: 'i1', status: 'resolved' }],
    ['no entries', []],
    ['an entry that is not an object', [5]],
    ['an entry without status', [{ interruptId: 'i1' }]],
    ['an unknown status', [{ interruptId: 'i1', status: 'maybe' }]],
    ['an interrupt id with a space', [{ interruptId: 'i 1', status: 'resolved' }]],
    ['one interrupt answered twice', [answer, { interruptId: 'i1', status: 'cancelled' }]],
    ['a 17 KiB payload', [{ ...answer, payload: 'x'.repeat(17 * 1024) }]],
    ['a payload nested 70 deep', [{ ...answer, payload: nested(70) }]],
    [
      '101 entries',
      Array.from({ length: 101 }, (_, i) => ({ interruptId: `i${i}`, status: 'cancelled' })),
    ],
  ];

  for (const [what, resume] of bad) {
    it(`a prompt with ${what} as resume: the resume is dropped, the prompt is sent once, nothing stuck`, async () => {
      const { chat, bodies } = await storedItem({ text: 'queued', resume });
      await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
      expect(shown(chat)).toEqual(['user: queued', 'assistant: second']);
      expect(chat.getState().outbox).toEqual([]);
      expect(chat.getState().error).toBeNull();
      expect(server.count('start')).toBe(1);
      expect(bodies.map((b) => (b as { resume?: unknown }).resume)).toEqual([undefined]);
    });
  }

  it('the check fails to load (a chunk lost after a deploy): the record is kept as it was, sent once', async () => {
    vi.doMock('../src/core/stored-outbox.js', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    try {
      // A resume the check would drop: here it goes out unchecked, as before the check.
      const resume = [{ interruptId: 'i1' }];
      const { chat, bodies } = await storedItem({ text: 'queued', resume }, false);
      await waitFor(() => chat.getState().outbox.length === 0, 'sent', BOUND_MS);
      expect(bodies.map((b) => (b as { resume?: unknown }).resume)).toEqual([resume]);
      expect(server.count('start')).toBe(1);
      expect(chat.getState().error).toBeNull();
    } finally {
      vi.doUnmock('../src/core/stored-outbox.js');
    }
  });

  it('an answer (no text) whose resume is bad: dropped, nothing sent, nothing stuck', async () => {
    const { chat } = await storedItem({ text: '', resume: [{ interruptId: 'i1' }] });
    expect(chat.getState().outbox).toEqual([]);
    await new Promise((r) => setTimeout(r, 100));
    expect(chat.getState().outbox).toEqual([]);
    expect(chat.getState().error).toBeNull();
    expect(server.count('start')).toBe(0);
  });

  it('a well-formed resume is kept: sent once with it', async () => {
    const resume = [
      { ...answer, payload: nested(50) },
      { interruptId: 'i2', status: 'cancelled' },
    ];
    const { chat, bodies } = await storedItem({ text: '', resume }, false);
    await waitFor(() => chat.getState().outbox.length === 0, 'sent', BOUND_MS);
    expect(bodies.map((b) => (b as { resume?: unknown }).resume)).toEqual([resume]);
    expect(server.count('start')).toBe(1);
    expect(chat.getState().error).toBeNull();
  });
});

describe('a stored outbox item whose runId the server would refuse', () => {
  const VALID = 'run-stored-0123456789abcdef';
  /**
   * Chat `c` over a stored outbox of `items`, and the runIds and texts of its POSTs; the
   * server refuses a runId as the real one does (`runIdProblem`: 400 `bad_request`).
   */
  async function storedOutbox(items: object[]) {
    const posts: { runId: unknown; text: unknown; body: Record<string, unknown> }[] = [];
    server.handler = (hit, req, res) => {
      if (hit.route !== 'start') return false;
      const body = JSON.parse((req as { body?: string }).body ?? '{}') as {
        runId?: unknown;
        messages?: { id?: unknown; content?: unknown }[];
        parentMessageId?: unknown;
      };
      posts.push({ runId: body.runId, text: body.messages?.[0]?.content, body });
      const { parentMessageId: parent, messages = [] } = body;
      const refused =
        runIdProblem(body.runId) !== null ||
        (parent !== undefined && parent !== null && !isWireId(parent)) ||
        messages.some((m) => typeof m.id !== 'string' || m.id === '');
      return refused && server.error(res, 400, 'bad_request');
    };
    const outbox = items.map((item) => ({ createdAt: 1, ...item }));
    const chat = threadChat(await storedChat({ outbox }));
    stops.push(chat.retain());
    return { chat, posts };
  }
  const cases: [string, unknown][] = [
    ['too short to be unguessable', 'o1'],
    ['with a space', 'run 0123456789abcdefghijk'],
    ['`..`', '..'],
    ['not a string', 5],
    ['absent', undefined],
  ];
  for (const [what, runId] of cases) {
    it(`a runId ${what}: the prompt goes out once as a new run, its text whole`, async () => {
      const { chat, posts } = await storedOutbox([{ runId, text: 'queued while offline' }]);
      await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
      expect(shown(chat)).toEqual(['user: queued while offline', 'assistant: second']);
      expect(posts).toHaveLength(1);
      expect(posts[0]!.text).toBe('queued while offline');
      expect(runIdProblem(posts[0]!.runId)).toBeNull();
      expect(chat.getState().outbox).toEqual([]);
      expect(chat.getState().error).toBeNull();
      expect(server.count('start')).toBe(1);
    });
  }

  it('two prompts stored under one runId: both go out, the second as a new run', async () => {
    const { chat, posts } = await storedOutbox([
      { runId: VALID, text: 'one' },
      { runId: VALID, text: 'two' },
    ]);
    await waitFor(() => shown(chat).length === 4, 'both prompts and replies', BOUND_MS);
    expect(shown(chat)).toEqual([
      'user: one',
      'assistant: second',
      'user: two',
      'assistant: second',
    ]);
    expect(posts.map((p) => p.text)).toEqual(['one', 'two']);
    expect(posts[0]!.runId).toBe(VALID);
    expect(posts[1]!.runId).not.toBe(VALID);
    expect(runIdProblem(posts[1]!.runId)).toBeNull();
    expect(server.count('start')).toBe(2);
    expect(chat.getState().error).toBeNull();
  });

  it('a parentMessageId the server refuses: dropped, the prompt goes once after the newest message', async () => {
    const { chat, posts } = await storedOutbox([
      { runId: VALID, text: 'edited', parentMessageId: 'not an id' },
    ]);
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(shown(chat)).toEqual(['user: edited', 'assistant: second']);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body.parentMessageId).toBeUndefined();
    expect(posts[0]!.text).toBe('edited');
    expect(chat.getState().error).toBeNull();
  });

  it('a regenerate whose parent the server refuses: dropped (it has no text), nothing sent', async () => {
    const { chat } = await storedOutbox([
      { runId: VALID, text: '', kind: 'regenerate', parentMessageId: '../m1' },
    ]);
    await waitFor(() => chat.getState().hydrated, 'the record read', BOUND_MS);
    await new Promise((r) => setTimeout(r, 100));
    expect(chat.getState().outbox).toEqual([]);
    expect(chat.getState().error).toBeNull();
    expect(server.count('start')).toBe(0);
  });

  it('an empty messageId: dropped, the prompt goes once under its default id', async () => {
    const { chat, posts } = await storedOutbox([{ runId: VALID, text: 'hello', messageId: '' }]);
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(posts.map((p) => (p.body.messages as { id: string }[])[0]!.id)).toEqual([
      `user-${VALID}`,
    ]);
    expect(chat.getState().error).toBeNull();
  });

  it('a valid runId is kept: the prompt goes out once under it (a retried POST stays idempotent)', async () => {
    const { chat, posts } = await storedOutbox([{ runId: VALID, text: 'kept' }]);
    await waitFor(() => shown(chat).length === 2, 'prompt and reply', BOUND_MS);
    expect(posts.map(({ runId, text }) => ({ runId, text }))).toEqual([
      { runId: VALID, text: 'kept' },
    ]);
    expect(chat.getState().outbox).toEqual([]);
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
