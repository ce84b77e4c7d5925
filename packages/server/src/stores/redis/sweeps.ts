import type { Redis } from 'ioredis';
import type { RunRecord } from '../types.js';
import type { RedisKeys } from './keys.js';
import type { ScriptCommands } from './scripts.js';

/** What the sweeps need of the `RedisStore`: its keys, `call` and `getRun`. */
export interface RedisSweepParts {
  readonly keys: RedisKeys;
  call<T>(what: string, op: (client: Redis & ScriptCommands) => Promise<T>): Promise<T>;
  getRun(runId: string): Promise<RunRecord | null>;
}

/** Runs still `running` whose lease lapsed (their producer is gone): the orphan sweep. */
export async function findOrphanedRuns(store: RedisSweepParts): Promise<RunRecord[]> {
  const { keys } = store;
  const ids = await store.call('findOrphanedRuns', (c) => c.smembers(keys.running));
  if (ids.length === 0) return [];
  const leases = await Promise.all(
    ids.map((id) => store.call('findOrphanedRuns', (c) => c.exists(keys.lease(id)))),
  );
  const lapsed = ids.filter((_, i) => leases[i] === 0);
  const records = await Promise.all(lapsed.map((id) => store.getRun(id)));
  const orphans: RunRecord[] = [];
  for (let i = 0; i < lapsed.length; i++) {
    const record = records[i];
    if (record?.status === 'running') orphans.push(record);
    else if (!record) {
      // The run's hash is gone (deleted by hand): stop scanning it.
      await store.call('findOrphanedRuns', (c) => c.srem(keys.running, lapsed[i]!));
    }
  }
  return orphans;
}

/** Deletes the events of runs that ended before `endedBefore`; resolves how many runs. */
export async function pruneEvents(store: RedisSweepParts, endedBefore: number): Promise<number> {
  const k = store.keys;
  let pruned = 0;
  // Bounded: at most 1,000 batches of 100 runs per sweep; the next sweep goes on.
  for (let round = 0; round < 1000; round++) {
    const ids = await store.call('pruneEvents', (c) =>
      c.zrangebyscore(k.ended, '-inf', `(${endedBefore}`, 'LIMIT', 0, 100),
    );
    for (const id of ids) {
      const done = await store.call('pruneEvents', (c) =>
        c.rsPruneRun(k.run(id), k.events(id), k.ended, id),
      );
      if (done === 1) pruned++;
    }
    if (ids.length < 100) break;
  }
  return pruned;
}
