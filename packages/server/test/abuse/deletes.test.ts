import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EventStore,
  MemoryStore,
  RedisStore,
  type RunningServer,
  SqliteStore,
  startServer,
} from '../../src/index.js';
import { bearer, postRun, tempDir } from '../helpers.js';
import { testRedisStore, testRedisUrl } from '../redis/shared.js';

/** Each store keeping its own files, and one keeping them in a directory. */
const VARIANTS: Array<{ name: string; create: (dir: string) => EventStore; directory: boolean }> = [
  { name: 'memory', create: () => new MemoryStore(), directory: false },
  {
    name: 'sqlite',
    create: (dir) => new SqliteStore({ path: join(dir, 'runs.db') }),
    directory: false,
  },
  { name: 'redis', create: () => testRedisStore(), directory: false },
  {
    name: 'sqlite + directory',
    create: (dir) => new SqliteStore({ path: join(dir, 'runs.db') }),
    directory: true,
  },
];

/** Everything a Redis key holds, whatever its type (a DUMP would be compressed). */
async function contentsOf(redis: Redis, key: string): Promise<unknown> {
  switch (await redis.type(key)) {
    case 'string':
      return redis.get(key);
    case 'hash':
      return redis.hgetall(key);
    case 'zset':
      return redis.zrange(key, '0', '-1');
    case 'set':
      return redis.smembers(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'stream':
      return redis.xrange(key, '-', '+');
    default:
      return null;
  }
}

/** Bytes no other test writes: found anywhere after the delete, they were not deleted. */
const marker = () => `marker-${crypto.randomUUID()}-`;

/**
 * Issue 26, findings 5 and 6: a deleted thread's bytes are gone from where the store kept
 * them (the SQLite file and its WAL, the files directory, Redis), and the thread stays
 * deleted — a retried POST naming it answers 404, it is not made again.
 */
describe.each(VARIANTS)('delete means gone on the $name store', (variant) => {
  const dir = tempDir();
  let server: RunningServer;
  let store: EventStore;
  beforeAll(async () => {
    store = variant.create(dir.path);
    server = await startServer({
      port: 0,
      store,
      log: () => {},
      ...(variant.directory ? { files: { directory: join(dir.path, 'files') } } : {}),
    });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  /** A thread with a finished run whose prompt and one uploaded file carry markers. */
  const threadWithSecrets = async () => {
    const promptMarker = marker();
    const fileMarker = marker();
    const first = {
      runId: crypto.randomUUID(),
      messages: [{ id: 'u1', role: 'user', content: promptMarker.repeat(64) }],
      forwardedProps: { script: { tokens: 3, tokensPerSecond: 0 } },
    };
    const created = await postRun(server.url, first);
    expect(created.status).toBe(201);
    const { threadId, token } = created.json;
    await server.manager.waitForRun(created.json.runId);
    const uploaded = await fetch(`${server.url}/threads/${threadId}/files?name=secret.txt`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', ...bearer(token) },
      body: fileMarker.repeat(64),
    });
    expect(uploaded.status).toBe(201);
    const { fileId } = (await uploaded.json()) as { fileId: string };
    const named = await postRun(
      server.url,
      {
        threadId,
        messages: [
          {
            id: 'u2',
            role: 'user',
            content: [
              {
                type: 'document',
                source: { type: 'url', value: `/api/threads/${threadId}/files/${fileId}` },
              },
            ],
          },
        ],
        forwardedProps: { script: { tokens: 3, tokensPerSecond: 0 } },
      },
      bearer(token),
    );
    expect(named.status).toBe(201);
    await server.manager.waitForRun(named.json.runId);
    return { threadId, token, fileId, first: { ...first, threadId }, promptMarker, fileMarker };
  };

  const remove = async (threadId: string, token: string) => {
    const response = await fetch(`${server.url}/threads/${threadId}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(response.status).toBe(204);
  };

  /** Where the bytes could still be, per store: every file under the temp dir, or Redis. */
  const leftovers = async (needles: string[]): Promise<string[]> => {
    const found: string[] = [];
    const walk = (path: string) => {
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        const full = join(path, entry.name);
        if (entry.isDirectory()) walk(full);
        else {
          const bytes = readFileSync(full);
          for (const needle of needles)
            if (bytes.includes(needle)) found.push(`${entry.name}: ${needle.slice(0, 20)}`);
        }
      }
    };
    walk(dir.path);
    if (store instanceof RedisStore) {
      const redis = new Redis(testRedisUrl());
      try {
        const prefix = (store as unknown as { keys: { prefix: string } }).keys.prefix;
        const keys = await redis.keys(`${prefix}*`);
        for (const key of keys) {
          const text = `${key} ${JSON.stringify(await contentsOf(redis, key))}`;
          for (const needle of needles) {
            if (text.includes(needle)) found.push(`${key}: ${needle.slice(0, 20)}`);
          }
        }
      } finally {
        redis.disconnect();
      }
    }
    return found;
  };

  it("the thread's file bytes, prompt text and ids are nowhere in the store once DELETE answered 204", async () => {
    const secret = await threadWithSecrets();
    // They were there (the search finds them) until the delete.
    if (variant.name !== 'memory') {
      expect((await leftovers([secret.fileMarker])).length).toBeGreaterThan(0);
    }
    const files = variant.directory ? null : store.files;
    expect(await files?.head(secret.threadId, secret.fileId)).toEqual(
      files ? expect.objectContaining({ fileId: secret.fileId }) : undefined,
    );
    await remove(secret.threadId, secret.token);
    // Before: the file's bytes were still in the SQLite WAL (and the prompt with them).
    expect(await leftovers([secret.fileMarker, secret.promptMarker, secret.fileId])).toEqual([]);
    if (variant.directory) expect(existsSync(join(dir.path, 'files', secret.threadId))).toBe(false);
    expect(await files?.get(secret.threadId, secret.fileId)).toBe(files ? null : undefined);
  });

  it("a retry of the thread's first POST after the delete answers 404 thread_not_found and makes nothing", async () => {
    const secret = await threadWithSecrets();
    await remove(secret.threadId, secret.token);
    const gone = {
      error: { code: 'thread_not_found', message: `thread ${secret.threadId} was deleted` },
    };
    // The very first POST again (same threadId, same runId), and a new run on the thread.
    // Before: 201 with a new token, and the thread existed again.
    const retried = await postRun(server.url, secret.first);
    expect([retried.status, retried.json]).toEqual([404, gone]);
    const another = await postRun(server.url, { ...secret.first, runId: crypto.randomUUID() });
    expect([another.status, another.json]).toEqual([404, gone]);
    expect(await store.getThread(secret.threadId)).toBe(null);
    const read = await fetch(`${server.url}/threads/${secret.threadId}`, {
      headers: bearer(secret.token),
    });
    expect(read.status).toBe(404);
  });
});

describe('a SQLite tombstone outlives a restart', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('the retried POST answers 404 on a new server over the same file', async () => {
    const path = join(dir.path, 'runs.db');
    const first = {
      threadId: `thread-${crypto.randomUUID()}`,
      runId: crypto.randomUUID(),
      messages: [{ id: 'u1', role: 'user', content: 'hi' }],
      forwardedProps: { script: { tokens: 2, tokensPerSecond: 0 } },
    };
    const a = await startServer({ port: 0, store: new SqliteStore({ path }), log: () => {} });
    const created = await postRun(a.url, first);
    await a.manager.waitForRun(created.json.runId);
    const deleted = await fetch(`${a.url}/threads/${first.threadId}`, {
      method: 'DELETE',
      headers: bearer(created.json.token),
    });
    expect(deleted.status).toBe(204);
    await a.close();
    const b = await startServer({ port: 0, store: new SqliteStore({ path }), log: () => {} });
    try {
      const retried = await postRun(b.url, first);
      expect([retried.status, retried.json]).toEqual([
        404,
        { error: { code: 'thread_not_found', message: `thread ${first.threadId} was deleted` } },
      ]);
    } finally {
      await b.close();
    }
  });
});
