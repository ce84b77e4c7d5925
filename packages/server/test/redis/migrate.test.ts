import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { testRedisUrl, uniquePrefix } from './shared.js';

const run = promisify(execFile);
const serverDir = fileURLToPath(new URL('../../', import.meta.url));

/** What the store wrote before keys carried hash tags (ids with `:` and `%` encoded). */
async function writeOldLayout(redis: Redis, p: string) {
  const t = 'thr%3A1'; // thread `thr:1`
  await redis.hset(`${p}thread:${t}`, {
    token: 'tok',
    createdAt: '100',
    runSeq: '2',
    msgSeq: '2',
    title: 'Old talk',
    updatedAt: '150',
  });
  await redis.zadd(`${p}thread:${t}:runs`, 1, 'r-done', 2, 'r-live');
  await redis.zadd(`${p}thread:${t}:history`, 1, 'u1', 2, 'a1');
  await redis.hset(`${p}thread:${t}:messages`, {
    u1: JSON.stringify({ id: 'u1', role: 'user', content: 'hi', parentId: null }),
    a1: JSON.stringify({ id: 'a1', role: 'assistant', content: 'hello', parentId: 'u1' }),
  });
  await redis.hset(`${p}thread:${t}:interrupts`, 'r-x/q1', 'r-done|resolved|120|{"answer":"yes"}');
  await redis.xadd(`${p}thread:${t}:events`, '1-0', 'e', '{"type":"CUSTOM","name":"one"}');
  await redis.xadd(`${p}thread:${t}:events`, '2-0', 'e', '{"type":"CUSTOM","name":"two"}');
  const file = (fileId: string) =>
    JSON.stringify({
      fileId,
      threadId: 'thr:1',
      name: `${fileId}.txt`,
      mimeType: 'text/plain',
      size: 2,
      createdAt: 130,
    });
  await redis.hset(`${p}thread:${t}:files`, { f1: file('f1'), f2: file('f2'), ':bytes': '4' });
  await redis.set(`${p}thread:${t}:file:f1`, 'a1');
  await redis.set(`${p}thread:${t}:file:f2`, 'b2');
  await redis.zadd(`${p}files:pending`, 130, 'thr:1/f2');
  const snapshot = {
    runId: 'r-done',
    threadId: 'thr:1',
    status: 'finished',
    lastOffset: 3,
    messages: [{ id: 'a1', role: 'assistant', content: 'hello' }],
  };
  await redis.hset(`${p}run:r-done`, {
    runId: 'r-done',
    threadId: 'thr:1',
    status: 'finished',
    createdAt: '110',
    lastOffset: '3',
    owner: 'old-instance',
    replyTo: 'u1',
    endedAt: '140',
    snapshot: JSON.stringify(snapshot),
  });
  for (let o = 1; o <= 3; o++) {
    await redis.xadd(`${p}run:r-done:events`, `${o}-0`, 'e', `{"type":"CUSTOM","name":"e${o}"}`);
  }
  await redis.zadd(`${p}ended`, 140, 'r-done');
  await redis.hset(`${p}run:r-live`, {
    runId: 'r-live',
    threadId: 'thr:1',
    status: 'running',
    createdAt: '160',
    lastOffset: '2',
    owner: 'old-instance',
  });
  for (let o = 1; o <= 2; o++) {
    await redis.xadd(`${p}run:r-live:events`, `${o}-0`, 'e', `{"type":"CUSTOM","name":"l${o}"}`);
  }
  await redis.sadd(`${p}running`, 'r-live');
  return snapshot;
}

describe('migrate:redis moves the layout before hash tags to the current one', () => {
  let redis: Redis;
  const prefix = uniquePrefix();
  const stores: RedisStore[] = [];

  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    redis.disconnect();
  });

  async function migrate(): Promise<string> {
    const { stdout } = await run(
      'pnpm',
      ['run', '--silent', 'migrate:redis', testRedisUrl(), prefix],
      {
        cwd: serverDir,
        timeout: 60_000,
      },
    );
    return stdout.trim();
  }

  it('one command, then the store reads everything the old one wrote; a second run moves nothing', async () => {
    const snapshot = await writeOldLayout(redis, prefix);
    expect(await migrate()).toBe(`moved 13 keys: 1 threads, 2 runs (prefix ${prefix})`);
    // Nothing of the old layout is left under the prefix.
    const left = await redis.keys(`${prefix}*`);
    expect(left.filter((key) => !key.startsWith(`${prefix}{`)).sort()).toEqual(
      [
        `${prefix}active-runs`,
        `${prefix}ended-runs`,
        `${prefix}files:pending`,
        `${prefix}runthread:r-done`,
        `${prefix}runthread:r-live`,
      ].sort(),
    );

    const store = new RedisStore({ url: testRedisUrl(), prefix, log: () => {} });
    stores.push(store);
    expect(await store.getThread('thr:1')).toEqual({
      threadId: 'thr:1',
      token: 'tok',
      createdAt: 100,
      title: 'Old talk',
      updatedAt: 150,
    });
    expect(
      (await store.listRuns('thr:1', 10)).map((r) => [r.runId, r.status, r.lastOffset]),
    ).toEqual([
      ['r-live', 'running', 2],
      ['r-done', 'finished', 3],
    ]);
    const done = await store.getRun('r-done');
    expect(done).toMatchObject({ threadId: 'thr:1', replyTo: 'u1', endedAt: 140 });
    expect(done?.snapshot).toEqual(snapshot);
    expect(await store.readEvents('r-done', 1, 10)).toEqual([
      { offset: 2, json: '{"type":"CUSTOM","name":"e2"}' },
      { offset: 3, json: '{"type":"CUSTOM","name":"e3"}' },
    ]);
    expect((await store.listMessages('thr:1', null, 10)).messages.map((m) => m.id)).toEqual([
      'u1',
      'a1',
    ]);
    expect(await store.interrupts.get('thr:1', ['r-x/q1'])).toEqual([
      {
        interruptId: 'r-x/q1',
        runId: 'r-done',
        status: 'resolved',
        answeredAt: 120,
        payload: { answer: 'yes' },
      },
    ]);
    expect(await store.threadLog.head('thr:1')).toEqual({ first: 1, last: 2 });
    expect(new TextDecoder().decode((await store.files.get('thr:1', 'f1'))?.bytes)).toBe('a1');

    // The indexes the new layout adds were built: the running run is the thread's claim
    // and an orphan, the ended one is pruned by retention, the pending upload is swept.
    await expect(
      store.createRun({
        runId: 'r-next',
        threadId: 'thr:1',
        createdAt: 170,
        owner: 'new',
        maxRunningInThread: 1,
      }),
    ).rejects.toMatchObject({ code: 'run_in_progress', runId: 'r-live' });
    expect((await store.findOrphanedRuns()).map((r) => r.runId)).toEqual(['r-live']);
    expect(await store.pruneEvents(Date.now())).toBe(1);
    expect(await store.readEvents('r-done', 0, 10)).toEqual([]);
    expect(await store.files.sweepUnreferenced?.(Date.now(), 10)).toBe(1);
    expect(await store.files.get('thr:1', 'f2')).toBeNull();
    expect((await store.files.get('thr:1', 'f1'))?.file.name).toBe('f1.txt');

    expect(await migrate()).toBe(`moved 0 keys: 0 threads, 0 runs (prefix ${prefix})`);
  }, 120_000);
});
