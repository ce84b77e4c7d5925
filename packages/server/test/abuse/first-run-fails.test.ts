import { join } from 'node:path';
import { ResumableError } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { SqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { postRun, prompt, tempDir } from '../helpers.js';

describe('abuse: a new thread whose first run fails to start (SQLite)', () => {
  const dir = tempDir();
  let server: RunningServer;
  let failures = 0;
  beforeAll(async () => {
    // A store that fails one createRun (a disk hiccup, a failover), after the thread was made.
    const store = new SqliteStore({ path: join(dir.path, 'runs.db') });
    const createRun = store.createRun.bind(store);
    store.createRun = async (record) => {
      if (failures-- > 0) throw new ResumableError('store_unavailable', 'disk hiccup');
      return createRun(record);
    };
    server = await startServer({ port: 0, store, log: () => {} });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  it('answers 503 and keeps no thread: the retry it was told to make is a 201', async () => {
    failures = 1;
    const body = {
      ...prompt('hi', { tokens: 1, tokensPerSecond: 0 }),
      threadId: 'first-run-fails',
      runId: crypto.randomUUID(),
    };
    const first = await postRun(server.url, body);
    expect([first.status, first.json]).toEqual([
      503,
      { error: { code: 'store_unavailable', message: 'disk hiccup' } },
    ]);
    expect(await server.store.getThread('first-run-fails')).toBeNull();
    // Before: the thread stayed, with a token nobody was given: 401 for every retry.
    const retry = await postRun(server.url, body);
    expect([retry.status, retry.json.runId, retry.json.threadId]).toEqual([
      201,
      body.runId,
      'first-run-fails',
    ]);
  });
});
