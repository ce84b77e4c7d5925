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
