import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, type RunningServer, SqliteStore, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, readEvents, tempDir, waitFor } from '../helpers.js';

const servers: RunningServer[] = [];
const dir = tempDir();
afterAll(async () => {
  for (const server of servers) await server.close();
  dir.cleanup();
});

/** Class 8's housekeeping: SQLite orphans are swept while running; memory is bounded. */
describe('abuse: store housekeeping', () => {
  it('SQLite: a run left running with no producer is ended agent_lost by the periodic sweep', async () => {
    const store = new SqliteStore({ path: join(dir.path, 'sweep.db') });
    const server = await startServer({ port: 0, store, orphanSweepMs: 200, log: () => {} });
    servers.push(server);
    // A run nobody produces (as a failed end or another process would leave it).
    await store.createThread({
      threadId: 'orphan-thread',
      token: 'orphan-token',
      createdAt: Date.now(),
    });
    await store.createRun({
      runId: 'orphan-run-0123456789',
      threadId: 'orphan-thread',
      createdAt: Date.now(),
      owner: 'gone',
    });
    await waitFor(
      async () => (await store.getRun('orphan-run-0123456789'))?.status === 'error',
      3000,
    );
    const log = await readEvents(`${server.url}/runs/orphan-run-0123456789/events`, {
      headers: bearer('orphan-token'),
    });
    expect(log.frames.map((f) => [f.offset, JSON.parse(f.json)])).toEqual([
      [1, { type: 'RUN_STARTED', threadId: 'orphan-thread', runId: 'orphan-run-0123456789' }],
      [
        2,
        {
          type: 'RUN_ERROR',
          message: 'the server running this run stopped before it finished',
          code: 'agent_lost',
        },
      ],
    ]);
    // Runs it produces itself are never swept.
    const live = await postRun(server.url, prompt('alive', { tokens: 30, tokensPerSecond: 40 }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await store.getRun(live.json.runId))?.status).toBe('running');
  });

  it('memory: bounded by bytes; the oldest ended runs lose their events first (410, snapshot kept)', async () => {
    const store = new MemoryStore({ maxEventBytes: 40_000 });
    const server = await startServer({ port: 0, store, log: () => {} });
    servers.push(server);
    const runs = [];
    for (let i = 0; i < 4; i++) {
      const run = await postRun(
        server.url,
        prompt(`fill ${i}`, { tokens: 150, tokensPerSecond: 0 }),
      );
      await server.manager.waitForRun(run.json.runId);
      runs.push(run.json);
    }
    const oldest = runs[0]!;
    const replay = await fetch(`${server.url}/runs/${oldest.runId}/events?after=1`, {
      headers: bearer(oldest.token),
    });
    expect(replay.status).toBe(410);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe(
      'offset_expired',
    );
    const snapshot = await fetch(`${server.url}/runs/${oldest.runId}`, {
      headers: bearer(oldest.token),
    });
    expect(((await snapshot.json()) as { status: string }).status).toBe('finished');
    const newest = runs[3]!;
    const read = await readEvents(`${server.url}/runs/${newest.runId}/events`, {
      headers: bearer(newest.token),
    });
    expect(read.frames).toHaveLength(154);
  });

  it('memory: when only running runs fill it, a run holds its events and ends store_unavailable', async () => {
    const store = new MemoryStore({ maxEventBytes: 5_000 });
    const server = await startServer({
      port: 0,
      store,
      limits: { storeOutageMs: 300 },
      log: () => {},
    });
    servers.push(server);
    const run = await postRun(server.url, prompt('too big', { tokens: 500, tokensPerSecond: 250 }));
    // Read live: once it ended, the full store may evict its events to take the thread's
    // run_ended announcement (ended runs go first), and a replay would answer 410.
    const read = await readEvents(`${server.url}/runs/${run.json.runId}/events`, {
      headers: bearer(run.json.token),
    });
    // Nothing it produced is lost: offsets 1..N, then the error past the budget.
    expect(read.frames.map((f) => f.offset)).toEqual(read.frames.map((_, i) => i + 1));
    expect(JSON.parse(read.frames[read.frames.length - 1]!.json)).toEqual({
      type: 'RUN_ERROR',
      message: 'the store was unavailable for over 300 ms',
      code: 'store_unavailable',
    });
    expect((await store.getRun(run.json.runId))?.status).toBe('error');
  });

  it('memory: thread events count in the cap — ended runs lose their events first, then the oldest thread events (410); one over the cap is store_unavailable', async () => {
    const store = new MemoryStore({ maxEventBytes: 40_000 });
    const server = await startServer({
      port: 0,
      store,
      limits: { storeOutageMs: 200 },
      log: () => {},
    });
    servers.push(server);
    const run = await postRun(server.url, prompt('first', { tokens: 20, tokensPerSecond: 0 }));
    const { threadId, runId, token } = run.json;
    await server.manager.waitForRun(runId);
    await waitFor(async () => (await server.manager.threads.head(threadId)).last === 2);
    const headers = bearer(token);
    const pad = { reason: 'pad', pad: 'x'.repeat(13_000) };
    const padJson = JSON.stringify({
      type: 'CUSTOM',
      name: 'resumable.history_changed',
      value: pad,
    });
    const announce = () => server.manager.announce(threadId, 'resumable.history_changed', pad);
    const replay = () => fetch(`${server.url}/runs/${runId}/events?after=0`, { headers });
    const threadStream = (after: number) =>
      readEvents(`${server.url}/threads/${threadId}/events?after=${after}`, { headers }, 1);
    expect((await replay()).status).toBe(200);

    // Three large thread events and the run's events pass the cap: the ended run's go.
    expect([await announce(), await announce(), await announce()]).toEqual([3, 4, 5]);
    const expired = await replay();
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe(
      'offset_expired',
    );
    expect((await store.getRun(runId))?.eventsPruned).toBe(true);
    expect(await server.manager.threads.head(threadId)).toEqual({ first: 1, last: 5 });

    // No ended run is left: a fourth evicts the oldest thread events until it fits.
    expect(await announce()).toBe(6);
    expect(await server.manager.threads.head(threadId)).toEqual({ first: 4, last: 6 });
    const gone = await threadStream(0);
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.body)).toMatchObject({ error: { code: 'offset_expired' } });
    const kept = await threadStream(3);
    expect(kept.frames).toEqual([{ offset: 4, json: padJson }]);

    // One event larger than the whole cap is refused as a run event is, evicting nothing.
    await expect(store.threadLog.append(threadId, 'x'.repeat(40_001), 1000)).rejects.toMatchObject({
      code: 'store_unavailable',
      message: `the memory store is full: ${3 * padJson.length} of 40000 bytes of events`,
    });
    const huge = { reason: 'pad', pad: 'x'.repeat(40_000) };
    expect(await server.manager.announce(threadId, 'resumable.history_changed', huge)).toBe(null);
    expect(await server.manager.threads.head(threadId)).toEqual({ first: 4, last: 6 });

    // Deleting the thread gives its bytes back: the cap takes a whole new run again.
    expect(
      (await fetch(`${server.url}/threads/${threadId}`, { method: 'DELETE', headers })).status,
    ).toBe(204);
    const next = await postRun(server.url, prompt('again', { tokens: 20, tokensPerSecond: 0 }));
    await server.manager.waitForRun(next.json.runId);
    const read = await readEvents(`${server.url}/runs/${next.json.runId}/events`, {
      headers: bearer(next.json.token),
    });
    expect(JSON.parse(read.frames.at(-1)!.json)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});
