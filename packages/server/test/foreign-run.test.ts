import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, SqliteStore, startServer } from '../src/index.js';
import { bearer, readEvents, tempDir } from './helpers.js';

/**
 * A run this process does not produce (written by another process, as with a shared store
 * that offers no live tail): subscribers follow it by polling the store, and cancelling it
 * here, where nobody runs it, ends it cancelled (protocol.md: cancel ends the run with
 * `RUN_FINISHED outcome:{type:"cancelled"}`).
 */
describe('a run produced elsewhere', () => {
  const dir = tempDir();
  let server: RunningServer;
  let store: SqliteStore;
  const ev = (offset: number, name: string) => ({
    offset,
    json: JSON.stringify({ type: 'CUSTOM', name }),
  });
  beforeAll(async () => {
    store = new SqliteStore({ path: `${dir.path}/shared.db` });
    server = await startServer({ port: 0, store });
    await store.createThread({ threadId: 't1', token: 'tok', createdAt: 1 });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  it('is followed by polling the store until its terminal event', async () => {
    await store.createRun({
      runId: 'run-elsewhere-0001',
      threadId: 't1',
      createdAt: 2,
      owner: 'other',
    });
    const started = JSON.stringify({
      type: 'RUN_STARTED',
      threadId: 't1',
      runId: 'run-elsewhere-0001',
    });
    await store.append('run-elsewhere-0001', [{ offset: 1, json: started }, ev(2, 'a')]);
    const reading = readEvents(`${server.url}/runs/run-elsewhere-0001/events?after=1`, {
      headers: bearer('tok'),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await store.append('run-elsewhere-0001', [ev(3, 'b')]);
    const finished = JSON.stringify({
      type: 'RUN_FINISHED',
      threadId: 't1',
      runId: 'run-elsewhere-0001',
      outcome: { type: 'success' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await store.append('run-elsewhere-0001', [{ offset: 4, json: finished }], {
      status: 'finished',
      endedAt: Date.now(),
      snapshot: {
        runId: 'run-elsewhere-0001',
        threadId: 't1',
        status: 'finished',
        lastOffset: 4,
        messages: [],
      },
    });
    const read = await reading;
    expect(read.frames).toEqual([ev(2, 'a'), ev(3, 'b'), { offset: 4, json: finished }]);
  });

  it('cancelled where nobody produces it: ends RUN_FINISHED cancelled, streams see it', async () => {
    await store.createRun({
      runId: 'run-elsewhere-0002',
      threadId: 't1',
      createdAt: 3,
      owner: 'gone',
    });
    await store.append('run-elsewhere-0002', [ev(1, 'x')]);
    const reading = readEvents(`${server.url}/runs/run-elsewhere-0002/events`, {
      headers: bearer('tok'),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cancel = await fetch(`${server.url}/runs/run-elsewhere-0002/cancel`, {
      method: 'POST',
      headers: bearer('tok'),
    });
    expect(cancel.status).toBe(202);
    const read = await reading;
    expect(read.frames.map((f) => [f.offset, JSON.parse(f.json)])).toEqual([
      [1, { type: 'CUSTOM', name: 'x' }],
      [
        2,
        {
          type: 'RUN_FINISHED',
          threadId: 't1',
          runId: 'run-elsewhere-0002',
          outcome: { type: 'cancelled' },
        },
      ],
    ]);
    expect(await store.getRun('run-elsewhere-0002')).toMatchObject({
      status: 'cancelled',
      lastOffset: 2,
    });
  });
});
