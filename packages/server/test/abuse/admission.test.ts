import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, STORES, tempDir, waitFor } from '../helpers.js';
import { heapAfterGc, MB } from './util.js';

const servers: RunningServer[] = [];
const dirs: Array<{ cleanup(): void }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const dir of dirs) dir.cleanup();
});

/** A server whose client address is the `X-Client` header (as behind a proxy). */
async function serve(options: Partial<StartServerOptions> = {}) {
  const server = await startServer({
    port: 0,
    store: 'memory',
    log: () => {},
    clientAddress: (request) => request.headers.get('x-client'),
    ...options,
  });
  servers.push(server);
  return server;
}

const SLOW = { tokens: 400, tokensPerSecond: 40 };
const from = (client: string) => ({ 'X-Client': client });

async function cancel(server: RunningServer, run: { runId: string; token: string }) {
  await fetch(`${server.url}/runs/${run.runId}/cancel`, {
    method: 'POST',
    headers: bearer(run.token),
  });
  await server.manager.waitForRun(run.runId);
}

/** Classes 3 (per-client cost) and 7 (no polling in a request), on every store. */
describe.each(STORES)('abuse: admission on the $name store', ({ create }) => {
  const dir = tempDir();
  dirs.push(dir);
  let server: RunningServer;

  it('a second POST on a thread with a running run answers 409 run_in_progress naming it', async () => {
    server = await serve({ store: create(dir.path) });
    const first = await postRun(server.url, prompt('first', SLOW));
    expect(first.status).toBe(201);
    const { threadId, token, runId } = first.json;
    const second = await postRun(
      server.url,
      { ...prompt('second', SLOW, 'u2'), threadId },
      bearer(token),
    );
    expect([second.status, second.json]).toEqual([
      409,
      {
        error: {
          code: 'run_in_progress',
          message: `thread ${threadId} has a run in progress (${runId}); start the next one when it ends`,
          runId,
        },
      },
    ]);
    await cancel(server, first.json);
    const third = await postRun(
      server.url,
      { ...prompt('third', { tokens: 2 }, 'u3'), threadId },
      bearer(token),
    );
    expect(third.status).toBe(201);
  });

  it('two POSTs racing on one thread: one 201, one 409 naming the other', async () => {
    const first = await postRun(server.url, prompt('base', { tokens: 1, tokensPerSecond: 0 }));
    await server.manager.waitForRun(first.json.runId);
    const { threadId, token } = first.json;
    const [a, b] = await Promise.all([
      postRun(server.url, { ...prompt('a', SLOW, 'ua'), threadId }, bearer(token)),
      postRun(server.url, { ...prompt('b', SLOW, 'ub'), threadId }, bearer(token)),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 409]);
    const [won, lost] = a.status === 201 ? [a, b] : [b, a];
    expect((lost.json as unknown as { error: { runId: string } }).error.runId).toBe(won.json.runId);
    await cancel(server, won.json);
  });

  it('a tokenless POST into a just-created thread answers 401 at once (no polling)', async () => {
    const first = await postRun(server.url, {
      ...prompt('mine', { tokens: 1 }),
      runId: crypto.randomUUID(),
    });
    const begun = performance.now();
    const intruder = await postRun(server.url, {
      ...prompt('theirs'),
      threadId: first.json.threadId,
      runId: crypto.randomUUID(),
    });
    // A POST taken for the first one's twin would wait FRESH_THREAD_MS (5 s) for its run;
    // a second is far from that on any machine, however loaded.
    expect(performance.now() - begun).toBeLessThan(1000);
    expect([intruder.status, intruder.json]).toEqual([
      401,
      {
        error: {
          code: 'unauthorized',
          message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
        },
      },
    ]);
  });
});

describe('abuse: per-client limits', () => {
  it('one client cannot take every run slot: its own limit answers 429, others still start', async () => {
    const server = await serve({ limits: { maxConcurrentRuns: 4, maxRunningRunsPerAddress: 2 } });
    const a1 = await postRun(server.url, prompt('a1', SLOW), from('a'));
    const a2 = await postRun(server.url, prompt('a2', SLOW), from('a'));
    const a3 = await postRun(server.url, prompt('a3', SLOW), from('a'));
    expect([a1.status, a2.status]).toEqual([201, 201]);
    expect([a3.status, a3.headers.get('retry-after'), a3.json]).toEqual([
      429,
      '1',
      {
        error: { code: 'too_many_requests', message: 'this client has 2 runs running, its limit' },
      },
    ]);
    const b1 = await postRun(server.url, prompt('b1', SLOW), from('b'));
    expect(b1.status).toBe(201);
    for (const run of [a1, a2, b1]) await cancel(server, run.json);
    // Slots come back when runs end.
    expect((await postRun(server.url, prompt('a4', { tokens: 1 }), from('a'))).status).toBe(201);
  });

  it('runs per minute per address: 429 with Retry-After past the limit', async () => {
    const server = await serve({ limits: { maxRunsPerMinutePerAddress: 3 } });
    for (let i = 0; i < 3; i++) {
      expect((await postRun(server.url, prompt(`r${i}`, { tokens: 1 }), from('c'))).status).toBe(
        201,
      );
    }
    const over = await postRun(server.url, prompt('r3', { tokens: 1 }), from('c'));
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(over.json).toEqual({
      error: {
        code: 'too_many_requests',
        message: 'this client started 3 runs in the last minute, its limit',
      },
    });
    expect((await postRun(server.url, prompt('other', { tokens: 1 }), from('d'))).status).toBe(201);
  });

  it('a POST refused for a limit stores no thread: its retry later creates it, with no token', async () => {
    const server = await serve({ limits: { maxRunsPerMinutePerAddress: 1 } });
    expect((await postRun(server.url, prompt('first', { tokens: 1 }), from('e'))).status).toBe(201);
    const threadId = 'thread-refused-at-the-limit';
    const over = await postRun(server.url, { ...prompt('second'), threadId }, from('e'));
    expect(over.status).toBe(429);
    expect((over.json.error as { code: string }).code).toBe('too_many_requests');
    expect(await server.store.getThread(threadId)).toBeNull();
    // The retry (another address here, standing in for the minute having passed) is a
    // first POST of that thread again: 201 with its token, not 401.
    const retry = await postRun(server.url, { ...prompt('second'), threadId }, from('f'));
    expect(retry.status).toBe(201);
    expect(retry.json.threadId).toBe(threadId);
    expect(typeof retry.json.token).toBe('string');
  });

  it('runs per minute per thread (its token): 429 with Retry-After', async () => {
    const server = await serve({ limits: { maxRunsPerMinutePerThread: 2 } });
    const first = await postRun(server.url, prompt('t0', { tokens: 1, tokensPerSecond: 0 }));
    await server.manager.waitForRun(first.json.runId);
    const { threadId, token } = first.json;
    const second = await postRun(
      server.url,
      { ...prompt('t1', { tokens: 1, tokensPerSecond: 0 }, 'u1b'), threadId },
      bearer(token),
    );
    await server.manager.waitForRun(second.json.runId);
    const third = await postRun(
      server.url,
      { ...prompt('t2', { tokens: 1 }, 'u1c'), threadId },
      bearer(token),
    );
    expect(third.status).toBe(429);
    expect(third.json).toEqual({
      error: {
        code: 'too_many_requests',
        message: `thread ${threadId} started 2 runs in the last minute, its limit`,
      },
    });
  });

  it('a thread whose history is full answers 400: start a new thread', async () => {
    const server = await serve({ limits: { maxThreadMessages: 4 } });
    const once = { tokens: 2, tokensPerSecond: 0 };
    const first = await postRun(server.url, prompt('one', once));
    await server.manager.waitForRun(first.json.runId);
    const { threadId, token } = first.json;
    const second = await postRun(
      server.url,
      { ...prompt('two', once, 'u2'), threadId },
      bearer(token),
    );
    expect(second.status).toBe(201);
    await server.manager.waitForRun(second.json.runId);
    const third = await postRun(
      server.url,
      { ...prompt('three', once, 'u3'), threadId },
      bearer(token),
    );
    expect([third.status, third.json]).toEqual([
      400,
      {
        error: {
          code: 'bad_request',
          message: `thread ${threadId} has 4 messages in its history, the limit; start a new thread`,
        },
      },
    ]);
  });

  it('a history limit over what a branch tree reads whole is refused at start-up', async () => {
    await expect(serve({ limits: { maxThreadMessages: 20_001 } })).rejects.toThrow(
      new RangeError('limits.maxThreadMessages must be from 1 to 20000'),
    );
  });

  it('100 × 1 MiB prompts from one client: past 16 MiB a minute it gets 429', async () => {
    const server = await serve({ limits: { maxBodyBytes: 2 * MB } });
    const big = 'p'.repeat(MB - 200);
    const statuses: number[] = [];
    for (let i = 0; i < 100 && !statuses.includes(429); i++) {
      statuses.push((await postRun(server.url, prompt(big, { tokens: 1 }), from('e'))).status);
    }
    expect(statuses).toEqual([...Array(16).fill(201), 429]);
  });

  it('the scripted agent makes its reply lazily: 20 runs of a million tokens cost < 20 MB', async () => {
    const server = await serve({
      limits: { maxEventsPerRun: 2_000_000, maxRunMs: 2 ** 31 - 1, maxRunningRunsPerAddress: 100 },
    });
    const before = await heapAfterGc();
    const runs = [];
    for (let i = 0; i < 20; i++) {
      const run = await postRun(
        server.url,
        prompt(`big ${i}`, { tokens: 1_000_000, tokensPerSecond: 1 }),
        from(`m${i}`),
      );
      expect(run.status).toBe(201);
      runs.push(run.json);
    }
    await waitFor(() => server.manager.activeRunCount === 20);
    expect(await heapAfterGc()).toBeLessThan(before + 20 * MB);
    for (const run of runs) await cancel(server, run);
    expect(server.manager.activeRunCount).toBe(0);
  });
});
