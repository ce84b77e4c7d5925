import type { RunSnapshot } from '@resumable/protocol';
import Database from 'libsql';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MemoryStore, SqliteStore } from '../src/index.js';
import { tempDir } from './helpers.js';

/**
 * `getRun` / `listRuns` are on every request's path (stream opens, POST retries, thread
 * listings) and only need a run's status and offsets: the folded snapshot of a finished
 * run (all its messages) is parsed or copied only when it is read.
 */
const SNAPSHOT: RunSnapshot = {
  runId: 'run-head-000001',
  threadId: 't',
  status: 'finished',
  lastOffset: 1,
  messages: [{ id: 'm1', role: 'assistant', content: 'hello' }],
};

async function finishedRun(store: MemoryStore | SqliteStore): Promise<void> {
  await store.createThread({ threadId: 't', token: 'x', createdAt: 0 });
  await store.createRun({ runId: SNAPSHOT.runId, threadId: 't', createdAt: 1, owner: 'me' });
  const json = '{"type":"RUN_FINISHED","threadId":"t","runId":"run-head-000001"}';
  await store.append(SNAPSHOT.runId, [{ offset: 1, json }], {
    status: 'finished',
    endedAt: 2,
    snapshot: SNAPSHOT,
  });
}

const HEAD = {
  runId: SNAPSHOT.runId,
  threadId: 't',
  status: 'finished',
  createdAt: 1,
  endedAt: 2,
  lastOffset: 1,
  eventsPruned: false,
  owner: 'me',
};

describe('run records without their snapshot', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('sqlite: getRun and listRuns do not read the snapshot; reading it parses it once', async () => {
    const path = `${dir.path}/runs.db`;
    const store = new SqliteStore({ path });
    try {
      await finishedRun(store);
      // Broken snapshot text: only a read of `snapshot` can notice.
      const raw = new Database(path);
      raw.prepare('UPDATE runs SET snapshot = ? WHERE run_id = ?').run('{broken', SNAPSHOT.runId);
      const record = (await store.getRun(SNAPSHOT.runId))!;
      const { snapshot: _, ...head } = Object.getOwnPropertyDescriptors(record);
      expect(Object.fromEntries(Object.entries(head).map(([k, d]) => [k, d.value]))).toEqual(HEAD);
      const [listed] = await store.listRuns('t', 10);
      expect(listed!.status).toBe('finished');
      expect(() => record.snapshot).toThrow(SyntaxError);

      raw
        .prepare('UPDATE runs SET snapshot = ? WHERE run_id = ?')
        .run(JSON.stringify(SNAPSHOT), SNAPSHOT.runId);
      raw.close();
      const fresh = (await store.getRun(SNAPSHOT.runId))!;
      expect(fresh).toEqual({ ...HEAD, snapshot: SNAPSHOT });
      expect(fresh.snapshot).toBe(fresh.snapshot);
    } finally {
      await store.close();
    }
  });

  it('memory: getRun copies the snapshot only when it is read, and then once', async () => {
    const store = new MemoryStore();
    await finishedRun(store);
    const clone = vi.spyOn(globalThis, 'structuredClone');
    try {
      const record = (await store.getRun(SNAPSHOT.runId))!;
      const [listed] = await store.listRuns('t', 10);
      expect([record.status, listed!.status]).toEqual(['finished', 'finished']);
      expect(clone).toHaveBeenCalledTimes(0);
      const snapshot = record.snapshot!;
      expect(snapshot).toEqual(SNAPSHOT);
      expect(record.snapshot).toBe(snapshot);
      expect(clone).toHaveBeenCalledTimes(1);
      // A caller's change to its copy does not reach the store.
      snapshot.messages.length = 0;
      expect((await store.getRun(SNAPSHOT.runId))!.snapshot).toEqual(SNAPSHOT);
    } finally {
      clone.mockRestore();
    }
  });
});
