import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { bearer, postRun, prompt } from '../helpers.js';
import { FAST } from '../http-server.js';
import { testRedisUrl, uniquePrefix } from './shared.js';

/**
 * Two instances in this process on one Redis. A's thread guard cannot see a delete made on
 * B: an upload on A that read its thread just before B deleted it and made it again stores
 * its bytes into the new thread, and only its check after storing can take them back.
 */
describe('an upload on A racing a delete and a re-create on B (Redis)', () => {
  let a: RunningServer;
  let b: RunningServer;
  let race: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const url = testRedisUrl();
    const prefix = uniquePrefix();
    const files = { maxFileBytes: 1000, maxThreadBytes: 1000 };
    const store = () => new RedisStore({ url, prefix, log: () => {} });
    [a, b] = await Promise.all([
      startServer({ port: 0, store: store(), instanceId: 'A', files, log: () => {} }),
      startServer({ port: 0, store: store(), instanceId: 'B', files, log: () => {} }),
    ]);
    // The delete and the re-create land between A's thread check and its store write.
    const put = a.store.files.put.bind(a.store.files);
    a.store.files.put = async (file, bytes, max) => {
      if (file.name === 'race.txt') await race();
      return put(file, bytes, max);
    };
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('answers 404 and takes its bytes back out of the new thread', async () => {
    const { json: first } = await postRun(a.url, prompt('hi', FAST));
    await a.manager.waitForRun(first.runId);
    const { threadId } = first;
    let again = { token: '' };
    race = async () => {
      const deleted = await fetch(`${b.url}/threads/${threadId}`, {
        method: 'DELETE',
        headers: bearer(first.token),
      });
      expect(deleted.status).toBe(204);
      const made = await postRun(b.url, { ...prompt('again', FAST), threadId });
      expect(made.status).toBe(201);
      again = made.json;
      await b.manager.waitForRun(made.json.runId);
    };
    const upload = (on: RunningServer, name: string, token: string) =>
      fetch(`${on.url}/threads/${threadId}/files?name=${name}`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'text/plain' },
        body: 'a'.repeat(1000),
      });
    const raced = await upload(a, 'race.txt', first.token);
    expect([raced.status, await raced.json()]).toEqual([
      404,
      { error: { code: 'thread_not_found', message: `no thread ${threadId}` } },
    ]);
    // Before: the 1000 bytes stayed in the new thread until the sweep, taking its budget.
    const full = await upload(b, 'b.txt', again.token);
    expect(full.status).toBe(201);
  });
});
