import { Redis } from 'ioredis';
import { MIGRATE_SCAN_COUNT } from '../../defaults.js';
import { decodeIdPart, RedisKeys, runMember } from './keys.js';

/**
 * Moves a Redis store written by the layout before hash tags (`<prefix>thread:<T>…`,
 * `<prefix>run:<R>…`, `running`, `ended`) to the current one (keys.ts: every key of a
 * thread under `<prefix>{<T>}`), in place, on one Redis: each key is renamed (its value
 * and TTL kept), then the indexes the current layout adds are built (`runthread:<R>`,
 * `active-runs`, `ended-runs`, each thread's `running` set and pending uploads).
 *
 * Run it with every server instance stopped. It can be run again: keys already moved are
 * not found again, and an interrupted run is finished by the next one. A cluster is then
 * filled from this Redis with `redis-cli --cluster import` (the keys carry their hash tags).
 */
export interface MigrationReport {
  threads: number;
  runs: number;
  keys: number;
}

export async function migrateRedisLayout(
  url: string,
  prefix = 'resumable:',
  log: (message: string) => void = () => {},
): Promise<MigrationReport> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, protocol: 2 });
  const keys = new RedisKeys(prefix);
  const report: MigrationReport = { threads: 0, runs: 0, keys: 0 };
  try {
    const mode = String(await redis.call('INFO', 'cluster'));
    if (mode.includes('cluster_enabled:1')) {
      throw new Error(
        'this Redis is a cluster node: migrate the single Redis the old layout is on, then import it into the cluster',
      );
    }
    const rename = async (from: string, to: string) => {
      // RENAMENX: a key already at the new name (a run interrupted earlier) is not overwritten.
      if ((await redis.exists(from)) === 0) return;
      await redis.renamenx(from, to);
      report.keys++;
    };

    // Runs first: their hash says which thread they belong to.
    for await (const key of scan(redis, `${glob(prefix)}run:*`)) {
      const rest = key.slice(`${prefix}run:`.length);
      if (rest.includes(':')) continue; // `:events`, `:lease`: moved with their run
      const runId = decodeIdPart(rest);
      const fields = await redis.hmget(key, 'threadId', 'status', 'endedAt', 'eventsPruned');
      const [threadId, status, endedAt, pruned] = fields;
      if (threadId == null || status == null) continue;
      const old = `${prefix}run:${rest}`;
      const lease = await redis.pttl(`${old}:lease`);
      await rename(`${old}:events`, keys.events(threadId, runId));
      await rename(`${old}:lease`, keys.lease(threadId, runId));
      await rename(old, keys.run(threadId, runId));
      await redis.set(keys.runThread(runId), threadId);
      const member = runMember(threadId, runId);
      if (status === 'running') {
        await redis.sadd(keys.threadRunning(threadId), runId);
        await redis.zadd(keys.activeRuns, Date.now() + Math.max(0, lease), member);
      } else if (pruned !== '1') {
        await redis.zadd(keys.endedRuns, Number(endedAt ?? 0), member);
      }
      report.runs++;
    }

    // Then threads: `thread:<T>` and its `thread:<T>:<part>` keys.
    for await (const key of scan(redis, `${glob(prefix)}thread:*`)) {
      const rest = key.slice(`${prefix}thread:`.length);
      const colon = rest.indexOf(':');
      const threadId = decodeIdPart(colon === -1 ? rest : rest.slice(0, colon));
      const part = colon === -1 ? '' : rest.slice(colon + 1);
      const to = newThreadKey(keys, threadId, part);
      if (to === null) {
        log(`left as it is (not a key of the old layout): ${key}`);
        continue;
      }
      await rename(key, to);
      if (part === '') report.threads++;
    }

    // Uploads no prompt named: now also marked in their thread's slot.
    for await (const [member] of zscan(redis, keys.pendingFiles)) {
      const slash = member.indexOf('/');
      if (slash === -1) continue;
      await redis.sadd(keys.threadPendingFiles(member.slice(0, slash)), member.slice(slash + 1));
    }
    await redis.del(`${prefix}running`, `${prefix}ended`);
    return report;
  } finally {
    redis.disconnect();
  }
}

/** The current name of an old thread key (`part` after `thread:<T>:`), or null. */
function newThreadKey(keys: RedisKeys, threadId: string, part: string): string | null {
  switch (part) {
    case '':
      return keys.thread(threadId);
    case 'runs':
      return keys.threadRuns(threadId);
    case 'history':
      return keys.history(threadId);
    case 'messages':
      return keys.messages(threadId);
    case 'interrupts':
      return keys.interrupts(threadId);
    case 'events':
      return keys.threadEvents(threadId);
    case 'files':
      return keys.files(threadId);
    default:
      if (part.startsWith('file:')) {
        return keys.file(threadId, decodeIdPart(part.slice('file:'.length)));
      }
      return null;
  }
}

async function* scan(redis: Redis, match: string): AsyncGenerator<string> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', match, 'COUNT', MIGRATE_SCAN_COUNT);
    cursor = next;
    // A key of the current layout never matches (`{` follows the prefix there).
    yield* found;
  } while (cursor !== '0');
}

async function* zscan(redis: Redis, key: string): AsyncGenerator<[string, string]> {
  let cursor = '0';
  do {
    const [next, flat] = await redis.zscan(key, cursor, 'COUNT', MIGRATE_SCAN_COUNT);
    cursor = next;
    for (let i = 0; i + 1 < flat.length; i += 2) yield [flat[i]!, flat[i + 1]!];
  } while (cursor !== '0');
}

/** `prefix` as a `SCAN MATCH` pattern that matches it literally. */
function glob(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
