import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis.js';
import { expectedLog } from '../expected.js';
import { bearer, postRun, prompt, readEvents, types, waitFor } from '../helpers.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

const LEASE_MS = 1000;

/**
 * Redis goes away under a running server, then comes back (with its append-only file, so
 * what was stored before is still there). Its own redis-server: stopping the shared one
 * would break the tests running beside this file.
 */
describe('Redis unreachable, then back', () => {
  let redis: RedisServer;
  let server: RunningServer;

  beforeAll(async () => {
    redis = await startRedisServer({ persistent: true });
    const store = new RedisStore({ url: redis.url, connectWaitMs: 300, log: () => {} });
    server = await startServer({
      port: 0,
      store,
      leaseMs: LEASE_MS,
      heartbeatMs: 1000,
    });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.dispose();
  });

  it('answers 503 store_unavailable while Redis is down, writes nothing half, and recovers', async () => {
    // Before: one finished run, one in progress.
    const done = await postRun(
      server.url,
      prompt('stored before', { tokens: 30, tokensPerSecond: 0 }),
    );
    expect(done.status).toBe(201);
    await server.manager.waitForRun(done.json.runId);
    token = done.json.token;
    const headers = bearer(token);
    const before = await readEvents(`${server.url}/runs/${done.json.runId}/events`, { headers });
    expect(before.frames.map((f) => f.json)).toEqual(expectedLog(done.json, 'stored before', 30));
    const text = 'interrupted by the outage';
    const live = await postRun(
      server.url,
      {
        ...prompt(text, { tokens: 5000, tokensPerSecond: 100 }, 'u2'),
        threadId: done.json.threadId,
      },
      headers,
    );
    expect(live.status).toBe(201);
    await waitFor(async () => ((await getJson(live.json.runId)).body.lastOffset as number) >= 10);

    await redis.stop();
    // The producer cannot store any more: it stops (its run stays `running` in Redis).
    await waitFor(() => server.manager.activeRunCount === 0, 15_000);

    const unavailable = {
      error: {
        code: 'store_unavailable',
        message: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/),
      },
    };
    const started = Date.now();
    const post = await postRun(server.url, prompt('during the outage', { tokens: 5 }));
    expect(post.status).toBe(503);
    expect(post.json).toEqual(unavailable);
    const get = await getJson(done.json.runId);
    expect(get.status).toBe(503);
    expect(get.body).toEqual(unavailable);
    const events = await fetch(`${server.url}/runs/${done.json.runId}/events`, { headers });
    expect(events.status).toBe(503);
    expect(events.headers.get('content-type')).toBe('application/json');
    expect(await events.json()).toEqual(unavailable);
    // Fast failures (3 × connectWaitMs 300 ms, with slack for a loaded machine), not
    // requests parked until Redis returns (those would have answered 200 after it).
    expect(Date.now() - started).toBeLessThan(5000);

    await redis.restart();
    await waitFor(async () => (await getJson(done.json.runId)).status === 200, 15_000);

    // What was stored before is served exactly as before.
    const after = await readEvents(`${server.url}/runs/${done.json.runId}/events`, { headers });
    expect(after.frames).toEqual(before.frames);
    // The interrupted run: its lease lapsed, so the sweep ends it agent_lost, once, right
    // after the last event that was stored: nothing half-written, no gap.
    const interrupted = await readEvents(`${server.url}/runs/${live.json.runId}/events`, {
      headers,
    });
    const n = interrupted.frames.length;
    expect(interrupted.frames.map((f) => f.offset)).toEqual(
      interrupted.frames.map((_, i) => i + 1),
    );
    expect(interrupted.frames.slice(0, -1).map((f) => f.json)).toEqual(
      expectedLog(live.json, text, 5000).slice(0, n - 1),
    );
    expect(JSON.parse(interrupted.frames[n - 1]!.json)).toMatchObject({
      type: 'RUN_ERROR',
      code: 'agent_lost',
    });
    expect(types(interrupted.frames).filter((t) => t === 'RUN_ERROR')).toEqual(['RUN_ERROR']);

    // And new runs work again.
    const fresh = await postRun(
      server.url,
      prompt('after the outage', { tokens: 12, tokensPerSecond: 0 }),
    );
    expect(fresh.status).toBe(201);
    await server.manager.waitForRun(fresh.json.runId);
    const log = await readEvents(`${server.url}/runs/${fresh.json.runId}/events`, {
      headers: bearer(fresh.json.token),
    });
    expect(log.frames.map((f) => f.json)).toEqual(expectedLog(fresh.json, 'after the outage', 12));
  });

  /** Both runs are on one thread, so one token reads them. */
  let token = '';
  async function getJson(
    runId: string,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${server.url}/runs/${runId}`, { headers: bearer(token) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
});
