import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { expectedLog } from '../expected.js';
import { bearer, follow, postRun, prompt, readEvents, waitFor } from '../helpers.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

const OUTAGE_MS = 10_000;

/**
 * Redis goes away for 10 s under a running run, then comes back (with its append-only
 * file). Its own redis-server: stopping the shared one would break the tests beside it.
 * The run keeps going through the outage (its events wait in memory, live readers keep
 * getting them) and the log in Redis ends up exactly as without an outage.
 */
describe('Redis stopped for 10 s mid-run, then back', () => {
  let redis: RedisServer;
  let server: RunningServer;
  const logs: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer({ persistent: true });
    const store = new RedisStore({ url: redis.url, connectWaitMs: 300, log: () => {} });
    server = await startServer({ port: 0, store, heartbeatMs: 1000, log: (m) => logs.push(m) });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.dispose();
  });

  it('loses nothing: requests get 503 meanwhile, the run ends as if nothing happened', async () => {
    const done = await postRun(
      server.url,
      prompt('stored before', { tokens: 30, tokensPerSecond: 0 }),
    );
    expect(done.status).toBe(201);
    await server.manager.waitForRun(done.json.runId);
    const headers = bearer(done.json.token);
    const before = await readEvents(`${server.url}/runs/${done.json.runId}/events`, { headers });
    expect(before.frames.map((f) => f.json)).toEqual(expectedLog(done.json, 'stored before', 30));

    const text = 'through the outage';
    const tokens = 1300;
    const live = await postRun(
      server.url,
      { ...prompt(text, { tokens, tokensPerSecond: 100 }, 'u2'), threadId: done.json.threadId },
      headers,
    );
    expect(live.status).toBe(201);
    const reader = follow(`${server.url}/runs/${live.json.runId}/events`, { headers });
    await waitFor(() => reader.frames.length >= 20);

    await redis.stop();
    const atStop = reader.frames.length;
    const unavailable = {
      error: {
        code: 'store_unavailable',
        message: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/),
      },
    };
    const post = await postRun(server.url, prompt('during the outage', { tokens: 5 }));
    expect([post.status, post.json]).toEqual([503, unavailable]);
    const get = await fetch(`${server.url}/runs/${done.json.runId}`, { headers });
    expect([get.status, await get.json()]).toEqual([503, unavailable]);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    // The live reader kept receiving the run's new events while Redis was away.
    const duringOutage = reader.frames.length - atStop;
    expect(duringOutage).toBeGreaterThan(300);
    expect(server.manager.activeRunCount).toBe(1);
    await redis.restart();

    const streamed = await reader.done;
    const expected = expectedLog(live.json, text, tokens);
    expect(streamed.map((f) => f.json)).toEqual(expected);
    expect(streamed.map((f) => f.offset)).toEqual(expected.map((_, i) => i + 1));
    // Stored in Redis, gapless, identical: a reader from 0 after the outage gets the same.
    const stored = await readEvents(`${server.url}/runs/${live.json.runId}/events`, { headers });
    expect(stored.frames).toEqual(streamed);
    const after = await readEvents(`${server.url}/runs/${done.json.runId}/events`, { headers });
    expect(after.frames).toEqual(before.frames);
    expect(logs.some((m) => /the store is back after \d+ ms; \d+ held events stored/.test(m))).toBe(
      true,
    );
    // The thread's stream announced both runs, in order; the end of the second once the
    // store took its terminal event after the outage.
    const thread = await readEvents(
      `${server.url}/threads/${done.json.threadId}/events`,
      { headers },
      4,
    );
    expect(
      thread.frames.map((f) => {
        const { name, value } = JSON.parse(f.json) as { name: string; value: { runId: string } };
        return [f.offset, name, value.runId];
      }),
    ).toEqual([
      [1, 'resumable.run_started', done.json.runId],
      [2, 'resumable.run_ended', done.json.runId],
      [3, 'resumable.run_started', live.json.runId],
      [4, 'resumable.run_ended', live.json.runId],
    ]);
  }, 40_000);
});
