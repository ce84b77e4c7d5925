import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, waitFor } from '../helpers.js';

/** A slow run: its stream stays open for the test. */
const SLOW = { tokens: 500, tokensPerSecond: 20 };

describe('abuse: one client opening stream after stream', () => {
  let server: RunningServer;
  const aborts: AbortController[] = [];
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      limits: { maxStreamsPerAddress: 3, maxRunningRunsPerThread: 5 },
    });
  });
  afterAll(async () => {
    for (const abort of aborts) abort.abort();
    await server.close();
  });

  const open = async (path: string, token: string) => {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(`${server.url}${path}`, {
      headers: bearer(token),
      signal: abort.signal,
    });
    return { response, abort };
  };

  it('past maxStreamsPerAddress (run and thread streams alike) answers 429; a closed one frees its slot', async () => {
    const { json: first } = await postRun(server.url, prompt('one', SLOW));
    const { json: second } = await postRun(
      server.url,
      { ...prompt('two', SLOW, 'u2'), threadId: first.threadId },
      bearer(first.token),
    );
    const a = await open(`/runs/${first.runId}/events`, first.token);
    const b = await open(`/runs/${second.runId}/events`, first.token);
    const c = await open(`/threads/${first.threadId}/events`, first.token);
    expect([a.response.status, b.response.status, c.response.status]).toEqual([200, 200, 200]);
    // Before: any number, up to 2000 per run and per thread (and a run per second).
    for (const path of [`/runs/${first.runId}/events`, `/threads/${first.threadId}/events`]) {
      const over = await open(path, first.token);
      expect(over.response.status).toBe(429);
      expect(over.response.headers.get('retry-after')).toBe('1');
      expect(await over.response.json()).toEqual({
        error: {
          code: 'too_many_requests',
          message: 'this client has 3 open event streams, its limit',
        },
      });
    }
    a.abort.abort();
    await waitFor(() => server.manager.streamCounts().run.open === 1);
    const again = await open(`/runs/${first.runId}/events`, first.token);
    expect(again.response.status).toBe(200);
  });
});

describe('abuse: streams per address by default', () => {
  const aborts: AbortController[] = [];
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const abort of aborts) abort.abort();
    for (const server of servers) await server.close();
  });
  const open = async (server: RunningServer, path: string, token: string, client: string) => {
    const abort = new AbortController();
    aborts.push(abort);
    const response = await fetch(`${server.url}${path}`, {
      headers: { ...bearer(token), 'X-Client': client },
      signal: abort.signal,
    });
    return response;
  };
  const tooMany = (message: string) => ({ error: { code: 'too_many_requests', message } });

  it('one address may hold 1000 open streams by default (a NAT of many users); the 1001st answers 429, another address is not held back', async () => {
    const server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      clientAddress: (request) => request.headers.get('x-client'),
    });
    servers.push(server);
    const { json: first } = await postRun(server.url, prompt('one', { tokens: 1 }));
    const path = `/threads/${first.threadId}/events`;
    const held = await Promise.all(
      Array.from({ length: 1000 }, () => open(server, path, first.token, 'greedy')),
    );
    expect(held.map((r) => r.status)).toEqual(Array(1000).fill(200));
    // Before: 2000, the same as a run's viewers, from one address; 100 cut off a NAT's 101st user.
    const over = await open(server, path, first.token, 'greedy');
    expect([over.status, over.status === 429 ? await over.json() : null]).toEqual([
      429,
      tooMany('this client has 1000 open event streams, its limit'),
    ]);
    expect((await open(server, path, first.token, 'other')).status).toBe(200);
  });
});
