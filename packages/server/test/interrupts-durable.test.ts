import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../src/index.js';
import { RedisStore } from '../src/stores/redis/redis-store.js';
import { SqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { tempDir } from './helpers.js';
import {
  answer,
  approved,
  asked,
  expectAnswered,
  getJson,
  replyOf,
  rid,
} from './interrupt-helpers.js';
import { testRedisUrl, uniquePrefix } from './redis/shared.js';

describe('human in the loop across restarts and instances', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('SQLite: asked, the server closed and reopened on the same file, answered once', async () => {
    const path = join(dir.path, 'hitl.db');
    const before = await startServer({ port: 0, store: new SqliteStore({ path }) });
    const t = await asked(before);
    await before.close();
    const after = await startServer({ port: 0, store: new SqliteStore({ path }) });
    try {
      const thread = await getJson(`${after.url}/threads/${t.threadId}`, t.token);
      expect(thread.waiting).toBe(true);
      const first = rid();
      expect((await answer(after, t, approved(t.interruptId), first)).status).toBe(201);
      expect(await replyOf(after, first, t.token)).toBe('Approved: I deleted notes/old-draft.md.');
      const again = await answer(after, t, approved(t.interruptId));
      expect(again.status).toBe(409);
      expect((again.json as unknown as { error: { runId: string } }).error.runId).toBe(first);
    } finally {
      await after.close();
    }
  });

  it('Redis: asked on A, answered on B, a second answer on A is 409 naming B’s run', async () => {
    const url = testRedisUrl();
    const prefix = uniquePrefix();
    const a = await startServer({ port: 0, store: new RedisStore({ url, prefix }) });
    const b = await startServer({ port: 0, store: new RedisStore({ url, prefix }) });
    try {
      const t = await asked(a);
      expect((await getJson(`${b.url}/threads/${t.threadId}`, t.token)).waiting).toBe(true);
      const onB = rid();
      expect((await answer(b, t, approved(t.interruptId), onB)).status).toBe(201);
      const onA = await answer(a, t, approved(t.interruptId));
      expectAnswered(onA, t.interruptId, onB);
      expect(await replyOf(b, onB, t.token)).toBe('Approved: I deleted notes/old-draft.md.');
      const run = await getJson(`${a.url}/runs/${t.runId}`, t.token);
      expect((run.interrupts as Array<{ answeredBy: string }>)[0]!.answeredBy).toBe(onB);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
