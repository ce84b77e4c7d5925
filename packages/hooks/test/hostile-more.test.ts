/**
 * More of the hostile-server suite (issue #10), for the paths `hostile.test.ts` does not
 * drive: the thread stream, uploads, interrupts. Each case ends in a typed error or the
 * exact result, within a bounded time and number of requests, with no unhandled rejection.
 */

import type { ResumableError } from '@resumable/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunApi } from '../src/core/api.js';
import { createEnvironment, createManualSignal } from '../src/core/env.js';
import type { LoopOptions } from '../src/core/reconnect.js';
import { createMemoryStorage } from '../src/core/storage.js';
import { ThreadFollower } from '../src/core/thread-stream.js';
import { type Handler, HostileServer, THREAD, TOKEN } from './hostile-server.js';
import { waitFor } from './util.js';

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
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
const stops: (() => void)[] = [];
let t0 = 0;

beforeAll(() => {
  process.on('unhandledRejection', onRejection);
});
afterAll(() => {
  process.off('unhandledRejection', onRejection);
});
beforeEach(async () => {
  server = await new HostileServer().start();
  t0 = Date.now();
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await server.close();
  expect(rejections).toEqual([]);
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

  it('204 to every GET of the thread events: no_progress after the bound', async () => {
    server.handler = threadEvents((_hit, _req, res) => server.noContent(res));
    const { follower: f, warnings } = follower();
    await givesUp(f, warnings);
    // The first attempt learned the resume point (GET /threads/{id}): progress.
    expect(streamHits()).toBe(MAX_STALE + 1);
  });
});
