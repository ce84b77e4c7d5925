import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../src/stores/redis/redis-store.js';
import { SqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import type { EventStore, InterruptAnswer } from '../src/stores/types.js';
import { CLUSTER_STORES, tempDir } from './helpers.js';
import { testRedisUrl, uniquePrefix } from './redis/shared.js';

const at = 1_700_000_000_000;
const answer = (interruptId: string, status: 'resolved' | 'cancelled' = 'resolved') =>
  ({ interruptId, runId: 'ignored', status, answeredAt: at }) satisfies InterruptAnswer;

describe.each(CLUSTER_STORES)('interrupt ledger on the $name store', ({ create }) => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('first answer wins, a retry by the winner is kept, release frees only its own answers', async () => {
    const store: EventStore = create(dir.path);
    try {
      const ledger = store.interrupts;
      const withPayload = { ...answer('i1'), payload: { approved: false, reason: 'a|b "c"' } };
      expect(await ledger.claim('t1', 'run-a', [withPayload, answer('i2', 'cancelled')])).toBe(
        null,
      );
      expect(await ledger.claim('t1', 'run-b', [answer('i3'), answer('i2')])).toBe('run-a');
      // Nothing of the refused claim was written.
      expect(await ledger.get('t1', ['i1', 'i2', 'i3'])).toEqual([
        {
          interruptId: 'i1',
          runId: 'run-a',
          status: 'resolved',
          answeredAt: at,
          payload: { approved: false, reason: 'a|b "c"' },
        },
        { interruptId: 'i2', runId: 'run-a', status: 'cancelled', answeredAt: at },
      ]);
      expect(await ledger.claim('t1', 'run-a', [answer('i1')])).toBe(null);
      // Another thread's interrupt with the same id is another interrupt.
      expect(await ledger.claim('t2', 'run-c', [answer('i1')])).toBe(null);
      await ledger.release('t1', 'run-b', ['i1']);
      expect(await ledger.get('t1', ['i1'])).toHaveLength(1);
      await ledger.release('t1', 'run-a', ['i1', 'i2']);
      expect(await ledger.get('t1', ['i1', 'i2'])).toEqual([]);
      expect(await ledger.get('t2', ['i1'])).toEqual([
        { interruptId: 'i1', runId: 'run-c', status: 'resolved', answeredAt: at },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('two stores on one backend: exactly one claim wins', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());

  it('SQLite: two connections to one file', async () => {
    const path = join(dir.path, 'ledger.db');
    const [a, b] = [new SqliteStore({ path }), new SqliteStore({ path })];
    try {
      const wins = await Promise.all([
        a.interrupts.claim('t', 'run-a', [answer('i')]),
        b.interrupts.claim('t', 'run-b', [answer('i')]),
      ]);
      expect(wins).toEqual([null, 'run-a']);
      expect((await b.interrupts.get('t', ['i']))[0]!.runId).toBe('run-a');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('Redis: two clients under one prefix, racing 20 claims', async () => {
    const url = testRedisUrl();
    const prefix = uniquePrefix();
    const [a, b] = [new RedisStore({ url, prefix }), new RedisStore({ url, prefix })];
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).interrupts.claim('t', `run-${i}`, [answer('i')]),
        ),
      );
      const winners = results.filter((r) => r === null);
      expect(winners).toHaveLength(1);
      const winner = `run-${results.indexOf(null)}`;
      expect(results.filter((r) => r !== null)).toEqual(Array(19).fill(winner));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
