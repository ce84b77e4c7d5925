import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Envelope } from '@resumable/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/util.js';
import { createEnvironment, createManualSignal } from '../base/env.js';
import { RunApi } from '../net/run-api.js';
import { createMemoryStorage } from '../records/storage.js';
import { planThreadBatch } from './thread-events.js';
import { ThreadFollower, threadRecordKey } from './thread-follower.js';

const started = (offset: number, runId: string): string =>
  `id: ${offset}\ndata: ${JSON.stringify({
    type: 'CUSTOM',
    name: 'resumable.run_started',
    value: { runId, messages: [{ id: `u-${runId}`, role: 'user', content: 'hi' }] },
  })}\n\n`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A thread whose events before offset 5 are trimmed (410), with 6 and 7 after it. */
async function trimmedThread(requests: string[]): Promise<string> {
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/threads/t') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ threadId: 't', lastOffset: 5, runs: [] }));
      return;
    }
    const after = Number(url.searchParams.get('after'));
    if (after < 5) {
      res.writeHead(410, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'offset_expired', message: 'trimmed' } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(`${started(6, 'r6')}${started(7, 'r7')}`);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api`;
}

describe('ThreadFollower', () => {
  it('410 from a persisted point: takes GET /threads/{id} lastOffset, resyncs once, continues after it', async () => {
    const requests: string[] = [];
    const endpoint = await trimmedThread(requests);
    const storage = createMemoryStorage();
    await storage.update(threadRecordKey('k'), () => ({
      v: 1,
      key: 'k',
      threadId: 't',
      offset: 2,
    }));
    const env = createEnvironment({
      online: createManualSignal(true),
      visible: createManualSignal(true),
    });
    const seen: Envelope[] = [];
    let resyncs = 0;
    const follower = new ThreadFollower({
      key: 'k',
      env,
      api: new RunApi({ endpoint, fetch: env.fetch, now: env.now }),
      storage,
      options: { backoff: { initialMs: 5, maxMs: 10 } },
      onEvents: (envelopes) => seen.push(...envelopes),
      onResync: () => resyncs++,
      warn: () => {},
      canWrite: () => true,
    });
    follower.setThread('t', 'tok');
    follower.start();
    await waitFor(() => seen.length === 2, 'events 6 and 7');
    follower.stop();
    expect(requests).toEqual([
      'GET /api/threads/t/events?after=2',
      'GET /api/threads/t',
      'GET /api/threads/t/events?after=5',
    ]);
    expect(seen.map((e) => e.offset)).toEqual([6, 7]);
    expect(resyncs).toBe(1);
    await waitFor(() => follower.offset === 7, 'offset 7');
    await expect
      .poll(() => storage.get(threadRecordKey('k')))
      .toEqual({ v: 1, key: 'k', threadId: 't', offset: 7 });
    // Only the last run still going is joined.
    expect(planThreadBatch(seen, null)).toEqual({
      follow: { runId: 'r7', prompt: { id: 'u-r7', role: 'user', content: 'hi' } },
      reloadHistory: false,
      deleted: false,
    });
  });

  it('a batch is applied in offset order: redelivery dropped, a gap stops it', () => {
    const env = createEnvironment();
    const seen: number[] = [];
    const follower = new ThreadFollower({
      key: 'k',
      env,
      api: new RunApi({ endpoint: 'http://127.0.0.1:9/api', fetch: env.fetch, now: env.now }),
      storage: createMemoryStorage(),
      options: {},
      onEvents: (envelopes) => seen.push(...envelopes.map((e) => e.offset)),
      onResync: () => {},
      warn: () => {},
      canWrite: () => false,
    });
    follower.setThread('t', null);
    const e = (offset: number) => ({ offset, event: { type: 'CUSTOM', name: 'x' } }) as Envelope;
    expect(follower.applyBatch([e(1)])).toBe(false); // no resume point yet
    follower.offset = 3;
    expect(follower.applyBatch([e(2), e(3), e(4), e(5)])).toBe(true);
    expect(follower.applyBatch([e(5), e(7), e(8)])).toBe(false);
    expect(seen).toEqual([4, 5]);
    expect(follower.offset).toBe(5);
    // Another tab's batch that skips ahead is not taken (the server is asked, shared-point.ts);
    // one that continues the point is.
    follower.applyShared([e(9), e(10)]);
    expect(seen).toEqual([4, 5]);
    follower.applyShared([e(5), e(6)]);
    expect(seen).toEqual([4, 5, 6]);
    expect(follower.offset).toBe(6);
    follower.stop();
  });
  it("another tab's batch that arrives while the stored point loads is dropped when the chat moved to another thread meanwhile", async () => {
    const env = createEnvironment();
    const seen: number[] = [];
    const memory = createMemoryStorage();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const storage = { ...memory, get: (key: string) => gate.then(() => memory.get(key)) };
    const follower = new ThreadFollower({
      key: 'k',
      env,
      api: new RunApi({ endpoint: 'http://127.0.0.1:9/api', fetch: env.fetch, now: env.now }),
      storage,
      options: {},
      onEvents: (envelopes) => seen.push(...envelopes.map((e) => e.offset)),
      onResync: () => {},
      warn: () => {},
      canWrite: () => false,
    });
    const e = (offset: number) => ({ offset, event: { type: 'CUSTOM', name: 'x' } }) as Envelope;
    follower.setThread('a', null);
    follower.applyShared([e(4), e(5)]); // thread a's, while a's stored point loads
    follower.setThread('b', null);
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    expect(follower.offset).toBe(null);
    follower.stop();
  });
});
