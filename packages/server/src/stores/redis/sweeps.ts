import { REDIS_SWEEP_BATCH } from '../../defaults.js';
import type { RunRecord } from '../types.js';
import type { RedisClient } from './connection.js';
import { parseRunMember, type RedisKeys } from './keys.js';
import type { RunIndex } from './run-index.js';
import type { ScriptCommands } from './scripts.js';

/** What the sweeps need of the `RedisStore`. */
export interface RedisSweepParts {
  readonly keys: RedisKeys;
  readonly runs: RunIndex;
  call<T>(what: string, op: (client: RedisClient & ScriptCommands) => Promise<T>): Promise<T>;
  getRunOf(threadId: string, runId: string): Promise<RunRecord | null>;
  indexEnded(threadId: string, runId: string, endedAt: number): Promise<void>;
}

/**
 * Runs still `running` whose lease lapsed (their producer is gone): the orphan sweep.
 * `active-runs` scores each run by when its lease lapses; only those past it are looked
 * at, and each against its own keys (the truth): a lease still there (the index missed a
 * renewal) puts it back in the future, an ended run moves to the retention index, and an
 * entry whose run never came to be (its creation failed) is dropped.
 */
export async function findOrphanedRuns(store: RedisSweepParts): Promise<RunRecord[]> {
  const { keys } = store;
  const now = Date.now();
  const members = await store.call('findOrphanedRuns', (c) =>
    c.zrangebyscore(keys.activeRuns, '-inf', now, 'LIMIT', 0, REDIS_SWEEP_BATCH),
  );
  const found = await Promise.all(
    members.map(async (member): Promise<RunRecord | null> => {
      const { threadId, runId } = parseRunMember(member);
      store.runs.remember(runId, threadId);
      const left = await store.call('findOrphanedRuns', (c) => c.pttl(keys.lease(threadId, runId)));
      if (left > 0) {
        await store.call('findOrphanedRuns', (c) =>
          c.zadd(keys.activeRuns, 'XX', now + left, member),
        );
        return null;
      }
      const record = await store.getRunOf(threadId, runId);
      if (record?.status === 'running') return record;
      if (record) await store.indexEnded(threadId, runId, record.endedAt ?? now);
      else await store.call('findOrphanedRuns', (c) => c.zrem(keys.activeRuns, member));
      return null;
    }),
  );
  return found.filter((record): record is RunRecord => record !== null);
}

/** Deletes the events of runs that ended before `endedBefore`; resolves how many runs. */
export async function pruneEvents(store: RedisSweepParts, endedBefore: number): Promise<number> {
  const k = store.keys;
  let pruned = 0;
  // Bounded: at most 1,000 batches of 100 runs per sweep; the next sweep goes on.
  for (let round = 0; round < 1000; round++) {
    const members = await store.call('pruneEvents', (c) =>
      c.zrangebyscore(k.endedRuns, '-inf', `(${endedBefore}`, 'LIMIT', 0, 100),
    );
    for (const member of members) {
      const { threadId, runId } = parseRunMember(member);
      const done = await store.call('pruneEvents', (c) =>
        c.rsPruneRun(k.run(threadId, runId), k.events(threadId, runId)),
      );
      await store.call('pruneEvents', (c) => c.zrem(k.endedRuns, member));
      if (done === 1) pruned++;
    }
    if (members.length < 100) break;
  }
  return pruned;
}
