import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { expectedLog } from '../expected.js';
import { bearer, follow, postRun, prompt, readEvents, waitFor } from '../helpers.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { resumingReader } from './resuming-reader.js';
import { uniquePrefix } from './shared.js';

const PAUSE_MS = 10_000;

/**
 * Redis paused for 10 s mid-run (SIGSTOP: the process and its sockets stay, nothing is
 * answered — a hung host or a partition, which a stopped Redis is not: that one refuses
 * connections at once). Its own redis-server: pausing the shared one would stall the tests
 * beside it. Two instances share it: A produces the run, B is another instance.
 */
describe('Redis paused for 10 s mid-run', () => {
  let redis: RedisServer;
  let a: RunningServer;
  let b: RunningServer;
  const logs: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const prefix = uniquePrefix();
    const store = () => new RedisStore({ url: redis.url, prefix, log: () => {} });
    a = await startServer({ port: 0, store: store(), log: (m) => logs.push(m) });
    b = await startServer({ port: 0, store: store(), log: () => {} });
  });
  afterAll(async () => {
    redis?.resume();
    await Promise.all([a?.close(), b?.close()]);
    await redis?.dispose();
  });

  it('a live subscriber on the producing instance receives events throughout; everyone ends with the stored log', async () => {
    const text = 'through a pause';
    const tokens = 1500;
    const started = await postRun(a.url, prompt(text, { tokens, tokensPerSecond: 100 }));
    expect(started.status).toBe(201);
    const { runId, token } = started.json;
    const headers = bearer(token);
    const arrivals: number[] = [];
    const live = follow(`${a.url}/runs/${runId}/events`, { headers });
    const onB = resumingReader((after) => `${b.url}/runs/${runId}/events?after=${after}`, headers);
    await waitFor(() => live.frames.length >= 30 && onB.frames.length >= 30);
    const seen = () => {
      while (arrivals.length < live.frames.length) arrivals.push(performance.now());
    };
    const watch = setInterval(seen, 5);

    redis.pause();
    const pausedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    redis.resume();
    seen();
    const duringPause = arrivals.filter((t) => t >= pausedAt && t < pausedAt + PAUSE_MS);
    clearInterval(watch);

    // Throughout: after the first second (the store is taken as down after
    // limits.storeStallMs, 1 s), every second of the pause brought events, from memory.
    for (let second = 2; second < PAUSE_MS / 1000; second++) {
      const from = pausedAt + second * 1000;
      const inSecond = duringPause.filter((t) => t >= from && t < from + 1000).length;
      expect({ second, events: inSecond > 0 }).toEqual({ second, events: true });
    }
    expect(duringPause.length).toBeGreaterThan(300);

    // The live stream never closed: the whole log, offsets 1..N, nothing repeated.
    const expected = expectedLog(started.json, text, tokens);
    const streamed = await live.done;
    expect(streamed.map((f) => f.json)).toEqual(expected);
    expect(streamed.map((f) => f.offset)).toEqual(expected.map((_, i) => i + 1));
    // B's client caught up when Redis came back: the same log, nothing lost or repeated.
    expect(await onB.done).toEqual(streamed);
    // And it is stored so: a reader from 0 on either instance gets the same.
    const stored = await readEvents(`${b.url}/runs/${runId}/events`, { headers });
    expect(stored.frames).toEqual(streamed);
    expect(logs.some((m) => /the store has not answered for 1000 ms/.test(m))).toBe(true);
    expect(logs.some((m) => /the store is back after \d+ ms/.test(m))).toBe(true);
  }, 60_000);
});
