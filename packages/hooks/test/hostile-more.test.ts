/**
 * More of the hostile-server suite (issue #10), for the paths `hostile.test.ts` does not
 * drive: the thread stream, uploads, interrupts. Each case ends in a typed error or the
 * exact result, within a bounded time and number of requests, with no unhandled rejection.
 */

import { createRequire } from 'node:module';
import { messageText, type ResumableError } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunApi } from '../src/core/api.js';
import type { ChatSession } from '../src/core/chat.js';
import { chatRecordKey } from '../src/core/chat-state.js';
import { createEnvironment, createManualSignal } from '../src/core/env.js';
import { InterruptSession } from '../src/core/interrupt-session.js';
import type { LoopOptions } from '../src/core/reconnect.js';
import { ResumableClient } from '../src/core/registry.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/storage.js';
import { ThreadFollower } from '../src/core/thread-stream.js';
import { uploadFile, uploadToChat } from '../src/core/upload.js';
import { fetchTransport, xhrTransport } from '../src/core/upload-transport.js';
import { type Handler, HostileServer, THREAD, TOKEN } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';
import { waitFor } from './util.js';

// jsdom ships no types of its own: its one constructor, as this file uses it.
const { JSDOM } = createRequire(import.meta.url)('jsdom') as {
  JSDOM: new (
    html: string,
    options: { url: string },
  ) => { window: { close(): void; XMLHttpRequest: typeof XMLHttpRequest; Blob: typeof Blob } };
};

const MAX_STALE = 5;
const FAST: LoopOptions & { requestTimeoutMs: number } = {
  backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
  heartbeatMs: 100,
  requestTimeoutMs: 300,
  maxAttemptsWithoutProgress: MAX_STALE,
  stableAfterMs: 1000,
};
const MAX_REQUESTS = 20;
const BOUND_MS = 3000;

let server: HostileServer;
const stops: (() => void)[] = [];
let t0 = 0;

trackRejections();
beforeEach(async () => {
  server = await new HostileServer().start();
  t0 = Date.now();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await server.close();
});

const threadEvents = (handler: Handler): Handler => {
  return (hit, req, res) => {
    if (hit.route === 'thread') return server.json(res, 200, { threadId: THREAD, lastOffset: 0 });
    if (hit.route === 'other' && /\/threads\/[^/]+\/events/.test(req.url ?? '')) {
      return handler(hit, req, res);
    }
    return false;
  };
};

/** A thread follower on the hostile server; its warnings, in order. */
function follower(): { follower: ThreadFollower; warnings: ResumableError[] } {
  const env = createEnvironment({
    online: createManualSignal(true),
    visible: createManualSignal(true),
  });
  const warnings: ResumableError[] = [];
  const f = new ThreadFollower({
    key: 'k',
    env,
    api: new RunApi({ endpoint: server.url, fetch: env.fetch, now: env.now }),
    storage: createMemoryStorage(),
    options: FAST,
    onEvents: () => {},
    onResync: () => {},
    warn: (w) => warnings.push(w),
    canWrite: () => true,
  });
  stops.push(() => f.stop());
  f.setThread(THREAD, TOKEN);
  f.start();
  return { follower: f, warnings };
}

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

const streamHits = () => server.hits.filter((h) => h.route === 'other').length;

/** The follower gave up with `no_progress`, in bounds, and asks no more. */
async function givesUp(f: ThreadFollower, warnings: ResumableError[]): Promise<void> {
  await waitFor(() => warnings.some((w) => w.code === 'no_progress'), 'no_progress', BOUND_MS);
  expect(warnings.map((w) => w.code)).toEqual(['no_progress']);
  expect(f.active).toBe(false);
  expect(Date.now() - t0).toBeLessThan(BOUND_MS);
  const n = server.hits.length;
  expect(n).toBeLessThanOrEqual(MAX_REQUESTS);
  await new Promise((r) => setTimeout(r, 150));
  expect(server.hits.length).toBe(n);
}

describe('thread stream against a server making no progress', () => {
  it('200 event stream that closes at once, every time: no_progress after the bound', async () => {
    server.handler = threadEvents((_hit, _req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(': hi\n\n');
      return true;
    });
    const { follower: f, warnings } = follower();
    await givesUp(f, warnings);
    // The first attempt learned the resume point (GET /threads/{id}): progress.
    expect(streamHits()).toBe(MAX_STALE + 1);
  });

  it('a stream that skips an offset every time (a gap): no_progress after the bound', async () => {
    server.handler = threadEvents((hit, _req, res) => {
      const event = { type: 'CUSTOM', name: 'resumable.noise', value: {} };
      server.hold(res).write(`id: ${hit.after + 2}\ndata: ${JSON.stringify(event)}\n\n`);
      return true;
    });
    const { follower: f, warnings } = follower();
    await givesUp(f, warnings);
    expect(f.offset).toBe(0);
    expect(streamHits()).toBe(MAX_STALE + 1);
  });

  it('stopped while GET /threads/{id} hangs: the request is aborted at once, not left to time out', async () => {
    let closedAt = 0;
    server.handler = (hit, _req, res) => {
      if (hit.route !== 'thread') return false;
      res.on('close', () => {
        closedAt = Date.now();
      });
      return server.hang(res);
    };
    const { follower: f } = follower();
    await waitFor(() => server.count('thread') === 1, 'the read');
    await new Promise((r) => setTimeout(r, 50));
    const stoppedAt = Date.now();
    f.stop();
    await waitFor(() => closedAt > 0, 'the request closed');
    expect(closedAt - stoppedAt).toBeLessThan(100);
  });

  it('204 to every GET of the thread events: no_progress after the bound', async () => {
    server.handler = threadEvents((_hit, _req, res) => server.noContent(res));
    const { follower: f, warnings } = follower();
    await givesUp(f, warnings);
    // The first attempt learned the resume point (GET /threads/{id}): progress.
    expect(streamHits()).toBe(MAX_STALE + 1);
  });
});

describe('upload through XMLHttpRequest against a hostile answer', () => {
  /** jsdom's XMLHttpRequest on the server's origin (a page's, with its CORS rules). */
  function page() {
    const { window } = new JSDOM('', { url: new URL(server.url).origin });
    stops.push(() => window.close());
    return window;
  }
  const IDLE_MS = 300;

  /** The upload's outcome: its error code, and when it settled. */
  async function upload(): Promise<{ code: string; ms: number }> {
    const w = page();
    const file = new w.Blob(['hello'], { type: 'text/plain' });
    const api = new RunApi({ endpoint: server.url, fetch, now: Date.now });
    const started = Date.now();
    const code = await uploadFile(api, { threadId: THREAD, token: TOKEN }, file, {
      transport: xhrTransport(w.XMLHttpRequest),
      idleTimeoutMs: IDLE_MS,
    }).then(
      () => 'uploaded',
      (error: ResumableError) => error.code,
    );
    return { code, ms: Date.now() - started };
  }

  /** Writes to the answer every `everyMs` until the client hangs up (or the test ends). */
  function endless(chunk: string, everyMs: number): Handler {
    return (hit, _req, res) => {
      if (hit.route !== 'other') return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => res.write(chunk), everyMs);
      res.on('close', () => clearInterval(timer));
      stops.push(() => clearInterval(timer));
      return true;
    };
  }

  it('the harness: a 201 naming the file uploads', async () => {
    server.handler = (hit, _req, res) =>
      hit.route === 'other' &&
      server.json(res, 201, {
        fileId: 'f1',
        url: '/f1',
        mimeType: 'text/plain',
        name: 'a',
        size: 5,
      });
    expect((await upload()).code).toBe('uploaded');
  });

  it('an answer that trickles forever ends in timeout, the idle bound after the upload', async () => {
    server.handler = endless(' ', 50);
    const { code, ms } = await upload();
    expect(code).toBe('timeout');
    expect(ms).toBeLessThan(IDLE_MS + 1000);
  }, 5000);

  it('an endless answer is not buffered past its bound: unexpected_response', async () => {
    server.handler = endless('x'.repeat(16 * 1024), 1);
    const { code, ms } = await upload();
    expect(code).toBe('unexpected_response');
    expect(ms).toBeLessThan(IDLE_MS + 1000);
  }, 5000);
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
    const chat = chatClient().chatSession('c', { threadId: THREAD, token: TOKEN });
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

describe('interrupts: GET /threads/{id} against a hostile server', () => {
  /** A chat whose GET /threads/{id} never answers; only its interrupts follow the thread. */
  const hungThread = () => {
    server.handler = (hit, _req, res) => hit.route === 'thread' && server.hang(res);
    return chatClient().chatSession('c', {
      threadId: THREAD,
      token: TOKEN,
      followThread: false,
      shareTabs: false,
    });
  };

  it('hung forever: each read times out at requestTimeoutMs, no_progress after the bound, reported', async () => {
    const warnings: string[] = [];
    const interrupts = new InterruptSession(hungThread(), (w) => warnings.push(w.code));
    stops.push(interrupts.retain());
    await waitFor(() => warnings.length > 0, 'a warning', BOUND_MS);
    expect(warnings).toEqual(['no_progress']);
    // The chat's own GET (joining an active run: once) and the interrupts' reads.
    expect(server.count('thread')).toBe(1 + MAX_STALE);
    expect(Date.now() - t0).toBeLessThan(BOUND_MS);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.count('thread')).toBe(1 + MAX_STALE);
  });

  it('released while a read hangs: the read times out and nothing more is asked', async () => {
    const interrupts = new InterruptSession(hungThread(), () => {});
    const release = interrupts.retain();
    await waitFor(() => server.count('thread') === 2, 'both reads');
    release();
    // Past the read's timeout (300 ms) and the longest retry delay (50 ms).
    await new Promise((r) => setTimeout(r, 600));
    expect(server.count('thread')).toBe(2);
  });
});

describe('a stored chat record of the wrong shape', () => {
  /** The chat `c` of THREAD over a record as an older version or an extension left it. */
  async function chatOver(record: object) {
    server.handler = (hit, _req, res) =>
      hit.route === 'history' &&
      server.json(res, 200, {
        messages: [{ id: 'h1', role: 'user', content: 'old' }],
        nextBefore: null,
      });
    const storage = createMemoryStorage();
    await storage.update(chatRecordKey('c'), () => ({
      v: 1,
      key: 'c',
      threadId: THREAD,
      token: TOKEN,
      ...record,
    }));
    const chat = chatClient(storage).chatSession('c', { threadId: THREAD, token: TOKEN });
    stops.push(chat.retain());
    return chat;
  }
  const shown = (chat: ChatSession) =>
    chat.getState().messages.map((m) => `${m.role}: ${messageText(m)}`);

  /** The history, then the stored prompt sent once and its reply; the outbox emptied. */
  async function sentOnce(chat: ChatSession): Promise<void> {
    await waitFor(() => shown(chat).length === 3, 'history, prompt and reply', BOUND_MS);
    expect(shown(chat)).toEqual(['user: old', 'user: queued', 'assistant: second']);
    expect(chat.getState().error).toBeNull();
    expect(chat.getState().outbox).toEqual([]);
    expect(server.count('start')).toBe(1);
  }
  const queued = { runId: 'o1', text: 'queued', createdAt: 1 };

  for (const [what, prompt] of [
    ['no message', { runId: 'r1' }],
    ['a null message', { runId: 'r1', message: null }],
    ['a message without id', { runId: 'r1', message: { role: 'user', content: 'x' } }],
  ] as const) {
    it(`a prompt with ${what} is dropped: history shows, the queued prompt is sent once`, async () => {
      await sentOnce(await chatOver({ outbox: [queued], prompt }));
    });
  }

  for (const extra of [
    { attachments: 5 },
    { attachments: [5] },
    { attachments: [{ fileId: 'f1' }] },
    { error: 5 },
    { messageId: 5 },
  ]) {
    it(`an outbox item with ${JSON.stringify(extra)}: the field is dropped, its text shows and is sent once`, async () => {
      await sentOnce(await chatOver({ outbox: [{ ...queued, ...extra }] }));
    });
  }
});

describe('POST /threads (a chat’s first upload) against a hostile server', () => {
  it('hung: the upload fails with timeout at the chat’s requestTimeoutMs', async () => {
    server.handler = (_hit, req, res) =>
      req.method === 'POST' && /\/threads$/.test(req.url ?? '') && server.hang(res);
    const chat = chatClient().chatSession('c');
    stops.push(chat.retain());
    const started = Date.now();
    const code = await uploadToChat(chat, new Blob(['hello']), {
      transport: fetchTransport(fetch),
    }).then(
      () => 'uploaded',
      (error: ResumableError) => error.code,
    );
    expect(code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(FAST.requestTimeoutMs + 1000);
  }, 5000);
});

describe('a thread stream that says the history changed, again and again', () => {
  it('one history read at a time: 40 history_changed events while a slow page loads make 3 GETs, not 40', async () => {
    const N = 40;
    let inFlight = 0;
    let most = 0;
    const events = threadEvents((_hit, _req, res) => {
      const stream = server.hold(res);
      let n = 0;
      const timer = setInterval(() => {
        n++;
        const event = { type: 'CUSTOM', name: 'resumable.history_changed', value: { reason: 'x' } };
        stream.write(`id: ${n}\ndata: ${JSON.stringify(event)}\n\n`);
        if (n === N) clearInterval(timer);
      }, 2);
      res.on('close', () => clearInterval(timer));
      return true;
    });
    server.handler = (hit, req, res) => {
      if (hit.route !== 'history') return events(hit, req, res);
      most = Math.max(most, ++inFlight);
      // A page that takes longer than all the events together.
      setTimeout(
        () => {
          inFlight--;
          server.json(res, 200, { messages: [], nextBefore: null });
        },
        N * 2 + 100,
      );
      return true;
    };
    const chat = chatClient().chatSession('c', {
      threadId: THREAD,
      token: TOKEN,
      shareTabs: false,
    });
    stops.push(chat.retain());
    await waitFor(() => server.count('history') >= 2, 'a reload', BOUND_MS);
    await new Promise((r) => setTimeout(r, 2 * (N * 2 + 100) + 100));
    // The first page (at load), the reload its events asked for, and one after it at most.
    expect(most).toBe(1);
    expect(server.count('history')).toBeLessThanOrEqual(3);
    expect(chat.getState().error).toBeNull();
  });
});
