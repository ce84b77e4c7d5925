import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { bearer, postRun, prompt } from '../helpers.js';
import { FAST } from '../http-server.js';
import { testRedisUrl, uniquePrefix } from './shared.js';

/**
 * Two instances in this process on one Redis. A's thread guard cannot see a delete made on
 * B: an upload on A that read its thread just before B deleted it stores its bytes under
 * the deleted thread, and only its check after storing can take them back. (Before issue
 * 26, B could make the thread again too, and the bytes went into the new thread; now its
 * id is never a thread again.)
 */
describe('an upload on A racing a delete on B (Redis)', () => {
  let a: RunningServer;
  let b: RunningServer;
  let race: () => Promise<void> = async () => {};
  const url = testRedisUrl();
  const prefix = uniquePrefix();
  beforeAll(async () => {
    const files = { maxFileBytes: 1000, maxThreadBytes: 1000 };
    const store = () => new RedisStore({ url, prefix, log: () => {} });
    [a, b] = await Promise.all([
      startServer({ port: 0, store: store(), instanceId: 'A', files, log: () => {} }),
      startServer({ port: 0, store: store(), instanceId: 'B', files, log: () => {} }),
    ]);
    // The delete lands between A's thread check and its commit.
    const upload = a.store.files.upload.bind(a.store.files);
    a.store.files.upload = (threadId, fileId) => {
      const inner = upload(threadId, fileId);
      return {
        ...inner,
        commit: async (file, max) => {
          if (file.name === 'race.txt') await race();
          return inner.commit(file, max);
        },
      };
    };
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('answers 404 and takes its bytes back out of the deleted thread; the id is not made again', async () => {
    const { json: first } = await postRun(a.url, prompt('hi', FAST));
    await a.manager.waitForRun(first.runId);
    const { threadId } = first;
    let again: { status: number; json: unknown } = { status: 0, json: null };
    race = async () => {
      const deleted = await fetch(`${b.url}/threads/${threadId}`, {
        method: 'DELETE',
        headers: bearer(first.token),
      });
      expect(deleted.status).toBe(204);
      const made = await postRun(b.url, { ...prompt('again', FAST), threadId });
      again = { status: made.status, json: made.json };
    };
    const raced = await fetch(`${a.url}/threads/${threadId}/files?name=race.txt`, {
      method: 'POST',
      headers: { ...bearer(first.token), 'Content-Type': 'text/plain' },
      body: 'a'.repeat(1000),
    });
    expect([raced.status, await raced.json()]).toEqual([
      404,
      { error: { code: 'thread_not_found', message: `no thread ${threadId}` } },
    ]);
    expect(again).toEqual({
      status: 404,
      json: { error: { code: 'thread_not_found', message: `thread ${threadId} was deleted` } },
    });
    // Of the thread, its tombstone is left, and a files hash holding no file (its total
    // back at 0): the raced bytes were taken back out.
    const redis = new Redis(url);
    const key = (name: string) => `${prefix}{${threadId}}:${name}`;
    try {
      expect((await redis.keys(key('*'))).sort()).toEqual([key('deleted'), key('files')]);
      expect(await redis.hgetall(key('files'))).toEqual({ ':bytes': '0' });
    } finally {
      redis.disconnect();
    }
  });
});
