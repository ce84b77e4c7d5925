/**
 * Reads of a thread against a hostile server (issue #10): the thread stream making no
 * progress or saying the history changed again and again, and the interrupts' reads of
 * `GET /threads/{id}` that never answer. Each case ends in `no_progress` or the exact
 * result, within a bounded time and number of requests, with no unhandled rejection.
 */

import type { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { createEnvironment, createManualSignal } from '../src/core/base/env.js';
import { ThreadFollower } from '../src/core/conversation/thread-follower.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import { RunApi } from '../src/core/net/run-api.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import {
  BOUND_MS,
  CHAT_FAST,
  chatClient,
  fastBounds,
  hostileServerPerTest,
  MAX_STALE,
  server,
  stops,
  t0,
} from './hostile-harness.js';
import { type Handler, THREAD, TOKEN } from './hostile-server.js';
import { waitFor } from './util.js';

const FAST = fastBounds(300);
const MAX_REQUESTS = 20;

hostileServerPerTest();

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

describe('interrupts: GET /threads/{id} against a hostile server', () => {
  /** A chat whose GET /threads/{id} never answers; only its interrupts follow the thread. */
  const hungThread = () => {
    server.handler = (hit, _req, res) => hit.route === 'thread' && server.hang(res);
    return chatClient(undefined, FAST).chatSession('c', {
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

describe('a thread stream that says the history changed, again and again', () => {
  it('one history read at a time: 40 history_changed events while a slow page loads make 3 GETs, not 40', async () => {
    const N = 40;
    let inFlight = 0;
    let most = 0;
    let sent = 0;
    const events = threadEvents((_hit, _req, res) => {
      const stream = server.hold(res);
      let n = 0;
      const timer = setInterval(() => {
        n++;
        const event = { type: 'CUSTOM', name: 'resumable.history_changed', value: { reason: 'x' } };
        stream.write(`id: ${n}\ndata: ${JSON.stringify(event)}\n\n`);
        sent = n;
        if (n === N) clearInterval(timer);
      }, 2);
      res.on('close', () => clearInterval(timer));
      return true;
    });
    server.handler = (hit, req, res) => {
      if (hit.route !== 'history') return events(hit, req, res);
      most = Math.max(most, ++inFlight);
      // A page that lasts until every event was sent, and 100 ms more: all of them arrive
      // while one page loads, however late a loaded machine's timers fire (a fixed 180 ms
      // page let a slow stream's last events ask for a fourth read).
      const answer = setInterval(() => {
        if (sent < N) return;
        clearInterval(answer);
        setTimeout(() => {
          inFlight--;
          server.json(res, 200, { messages: [], nextBefore: null });
        }, 100);
      }, 5);
      return true;
    };
    // A page may take 2 s: at 300 ms a loaded machine's slow page timed out and was asked again.
    const chat = chatClient(undefined, CHAT_FAST).chatSession('c', {
      threadId: THREAD,
      token: TOKEN,
      shareTabs: false,
    });
    stops.push(chat.retain());
    await waitFor(() => server.count('history') >= 2, 'a reload', BOUND_MS);
    await waitFor(() => sent === N && inFlight === 0, 'the last page', BOUND_MS);
    await new Promise((r) => setTimeout(r, 300));
    // The first page (at load), the reload its events asked for, and one after it at most.
    expect(most).toBe(1);
    expect(server.count('history')).toBeLessThanOrEqual(3);
    expect(chat.getState().error).toBeNull();
  });
});
