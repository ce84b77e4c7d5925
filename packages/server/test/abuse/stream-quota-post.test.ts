import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, prompt } from '../helpers.js';

const servers: RunningServer[] = [];
const aborts: AbortController[] = [];
afterAll(async () => {
  for (const abort of aborts) abort.abort();
  for (const server of servers) await server.close();
});

/** A server allowing one open stream per address, and a first run on it. */
async function oneStreamServer() {
  const server = await startServer({
    port: 0,
    store: 'memory',
    log: () => {},
    limits: { maxStreamsPerAddress: 1 },
  });
  servers.push(server);
  const { json: first } = await postRun(server.url, prompt('one', { tokens: 1 }));
  return { server, first };
}

describe('POST /runs with Accept: text/event-stream past the stream limit', () => {
  /**
   * protocol.md: "A refused POST (4xx, or a 5xx before its run was stored) stores nothing".
   * The stream quota is taken only when the answer is built, after the run was created and
   * started: the POST answers 429 (retry after 1 s) while its run runs, and an AG-UI
   * HttpAgent's retry (no runId) starts a second one. With the default now 100 per address
   * (was 2000), a NAT or a proxy without clientAddress reaches this.
   */
  it('answers 429 and stores nothing (no thread, no run)', async () => {
    const { server, first } = await oneStreamServer();
    const abort = new AbortController();
    aborts.push(abort);
    const held = await fetch(`${server.url}/threads/${first.threadId}/events`, {
      headers: bearer(first.token),
      signal: abort.signal,
    });
    expect(held.status).toBe(200);
    const threadId = 'review-thread-0123456789abcdef';
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ ...prompt('two', { tokens: 1 }), threadId }),
    });
    await response.body?.cancel();
    const stored = await server.store.getThread(threadId);
    const runs = stored ? await server.store.listRuns(threadId, 10) : [];
    expect([response.status, stored, runs.length]).toEqual([429, null, 0]);
  });
});

describe('POST /runs with Accept: text/event-stream refused for another reason', () => {
  it('gives its reserved stream slot back: the next streaming POST gets its stream', async () => {
    const { server, first } = await oneStreamServer();
    await server.manager.waitForRun(first.runId);
    const streaming = (body: unknown, token?: string) =>
      fetch(`${server.url}/runs`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
          ...(token ? bearer(token) : {}),
        },
        body: JSON.stringify(body),
      });
    // No token for an existing thread: 401, after the slot was taken.
    const refused = await streaming({
      ...prompt('two', { tokens: 1 }, 'u2'),
      threadId: first.threadId,
    });
    await refused.body?.cancel();
    const next = await streaming(
      { ...prompt('three', { tokens: 1 }, 'u3'), threadId: first.threadId },
      first.token,
    );
    const text = await next.text();
    expect([refused.status, next.status, text.includes('RUN_FINISHED')]).toEqual([401, 200, true]);
  });
});
