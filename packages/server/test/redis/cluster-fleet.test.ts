import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { bearer, postRun, prompt, waitFor } from '../helpers.js';
import { connected, testClusterSeeds, uniquePrefix } from './shared.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/**
 * Three server instances on the project's Redis Cluster under one prefix: what holds
 * across the fleet.
 */
describe('a fleet of three instances on a Redis Cluster', () => {
  const servers: RunningServer[] = [];
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    const prefix = uniquePrefix();
    const options: Omit<StartServerOptions, 'store'> = {
      port: 0,
      log: () => {},
    };
    for (let i = 0; i < 3; i++) {
      const store = await connected(
        new RedisStore({ cluster: testClusterSeeds(), prefix, log: () => {} }),
      );
      servers.push(await startServer({ ...options, store }));
    }
    [a, b] = servers as [RunningServer, RunningServer];
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  /** Cancels a run on the instance producing it and waits for its terminal event to be stored. */
  const cancel = async (server: RunningServer, runId: string, token: string) => {
    const response = await fetch(`${server.url}/runs/${runId}/cancel`, {
      method: 'POST',
      headers: bearer(token),
    });
    expect(response.status).toBe(202);
    await server.manager.waitForRun(runId);
  };

  it('two instances racing to start a run on one thread: exactly one 201, the other 409 run_in_progress naming it', async () => {
    const first = await postRun(a.url, prompt('the thread', { tokens: 1, tokensPerSecond: 0 }));
    expect(first.status).toBe(201);
    const { threadId, token } = first.json;
    await a.manager.waitForRun(first.json.runId);
    // Several rounds: without an atomic claim both instances see no running run and both
    // start one (each checked the thread's runs, then created its own).
    for (let round = 0; round < 4; round++) {
      const body = (n: number) => ({
        ...prompt(`round ${round}`, { tokens: 200, tokensPerSecond: 20 }, `u${round}-${n}`),
        threadId,
      });
      const [onA, onB] = await Promise.all([
        postRun(a.url, body(1), bearer(token)),
        postRun(b.url, body(2), bearer(token)),
      ]);
      const answers = [onA, onB];
      const won = answers.filter((r) => r.status === 201);
      const lost = answers.filter((r) => r.status === 409);
      expect([won.length, lost.length]).toEqual([1, 1]);
      const winner = won[0]!.json.runId;
      expect(lost[0]!.json).toEqual({
        error: {
          code: 'run_in_progress',
          message: `thread ${threadId} has a run in progress (${winner}); start the next one when it ends`,
          runId: winner,
        },
      });
      await cancel(onA.status === 201 ? a : b, winner, token);
    }
  });
});

describe('a fleet of three instances on a Redis Cluster: one budget per client', () => {
  const servers: RunningServer[] = [];
  /** Each test is its own client (the `X-Client` header is the address, as behind a proxy). */
  const as = (client: string) => ({ 'X-Client': client });

  beforeAll(async () => {
    const prefix = uniquePrefix();
    for (let i = 0; i < 3; i++) {
      const store = await connected(
        new RedisStore({ cluster: testClusterSeeds(), prefix, log: () => {} }),
      );
      servers.push(
        await startServer({
          port: 0,
          store,
          log: () => {},
          clientAddress: (request) => request.headers.get('x-client'),
          limits: { maxRunsPerMinutePerAddress: 12, maxRunningRunsPerAddress: 2 },
          files: { maxUploadsPerMinutePerAddress: 2 },
        }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('one rate budget for the fleet: 12 runs a minute from one address across 3 instances, then 429', async () => {
    // The running-runs quota (2) is not what refuses here: each run ends at once.
    const headers = as('budget');
    const statuses: number[] = [];
    let lastRefusal: { status: number; json: unknown; retryAfter: string | null } | null = null;
    for (let i = 0; i < 18; i++) {
      const server = servers[i % 3]!;
      const body = prompt(`budget ${i}`, { tokens: 1, tokensPerSecond: 0 });
      const started = await postRun(server.url, body, headers);
      statuses.push(started.status);
      if (started.status === 201) await server.manager.waitForRun(started.json.runId);
      else lastRefusal = { ...started, retryAfter: started.headers.get('retry-after') };
    }
    expect(statuses).toEqual([...Array(12).fill(201), ...Array(6).fill(429)]);
    expect(lastRefusal?.json).toEqual({
      error: {
        code: 'too_many_requests',
        message: 'this client started 12 runs in the last minute, its limit',
      },
    });
    expect(Number(lastRefusal?.retryAfter)).toBeGreaterThan(0);
  });

  it('runs running at once per address, and uploads per minute, are counted across the fleet', async () => {
    const headers = as('quotas');
    const [a, b, c] = servers as [RunningServer, RunningServer, RunningServer];
    const long = (text: string) => prompt(text, { tokens: 400, tokensPerSecond: 20 });
    const one = await postRun(a.url, long('one'), headers);
    const two = await postRun(b.url, long('two'), headers);
    const three = await postRun(c.url, long('three'), headers);
    expect([one.status, two.status, three.status]).toEqual([201, 201, 429]);
    expect(three.json).toEqual({
      error: {
        code: 'too_many_requests',
        message: 'this client has 2 runs running, its limit',
      },
    });
    // Uploads: 2 a minute for the address, whichever instance takes them.
    const upload = async (server: RunningServer) => {
      const response = await fetch(`${server.url}/threads/${one.json.threadId}/files?name=a.png`, {
        method: 'POST',
        headers: { 'Content-Type': 'image/png', ...headers, ...bearer(one.json.token) },
        body: PNG as BodyInit,
      });
      await response.arrayBuffer();
      return response.status;
    };
    expect([await upload(a), await upload(b), await upload(c)]).toEqual([201, 201, 429]);
    for (const [server, run] of [
      [a, one],
      [b, two],
    ] as const) {
      await fetch(`${server.url}/runs/${run.json.runId}/cancel`, {
        method: 'POST',
        headers: bearer(run.json.token),
      });
      await server.manager.waitForRun(run.json.runId);
    }
    // Their holds were released with them: the address may run again.
    const again = prompt('again', { tokens: 1, tokensPerSecond: 0 });
    expect((await postRun(c.url, again, headers)).status).toBe(201);
  });
});

describe('cancel requests on a Redis Cluster', () => {
  it('reach every instance through pub/sub, subscribed while its cluster client was still connecting', async () => {
    const prefix = uniquePrefix();
    const other = await connected(
      new RedisStore({ cluster: testClusterSeeds(), prefix, log: () => {} }),
    );
    // As a server does at start-up: subscribed while its connections are still coming up
    // (ioredis refused a SUBSCRIBE then, "Connection is closed": the subscription was lost).
    const owners: RedisStore[] = [];
    const heard: string[][] = [];
    for (const delay of [0, 50, 100, 150]) {
      const owner = new RedisStore({ cluster: testClusterSeeds(), prefix, log: () => {} });
      owners.push(owner);
      const mine: string[] = [];
      heard.push(mine);
      await new Promise((resolve) => setTimeout(resolve, delay));
      owner.onCancelRequest((runId) => mine.push(runId));
    }
    try {
      await other.createThread({ threadId: 't', token: 'x', createdAt: 1 });
      await other.createRun({ runId: 'r', threadId: 't', createdAt: 2, owner: 'owner' });
      // Published until all heard (a subscription made after a publish misses that one);
      // no lease renewal runs here, so only pub/sub can deliver it.
      await waitFor(async () => {
        if (heard.every((h) => h.length > 0)) return true;
        await other.requestCancel('r');
        await new Promise((resolve) => setTimeout(resolve, 100));
        return heard.every((h) => h.length > 0);
      });
      expect(heard.map((h) => h[0])).toEqual(['r', 'r', 'r', 'r']);
    } finally {
      await Promise.all([...owners, other].map((s) => s.close()));
    }
  });
});
