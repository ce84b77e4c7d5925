import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys.js';

/** The running total of a thread's file sizes, beside the file ids in the same hash. */
export const TOTAL = ':bytes';

/** The member of `files:pending` naming one upload (`/` is outside the id alphabet). */
export const pendingMember = (threadId: string, fileId: string) => `${threadId}/${fileId}`;

/**
 * KEYS: pending set, files hash, file bytes. ARGV: member, fileId, '1' to delete it only
 * if it is still pending (no prompt named it since: the sweep), '0' in any case. Deletes
 * the upload with its share of the thread's total. → 1 deleted, 0 not.
 */
const REMOVE_FILE = `#!lua
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 and ARGV[3] == '1' then return 0 end
local json = redis.call('HGET', KEYS[2], ARGV[2])
if not json then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HINCRBY', KEYS[2], '${TOTAL}', -cjson.decode(json).size)
redis.call('DEL', KEYS[3])
return 1
`;

interface RedisAccess {
  readonly keys: RedisKeys;
  call<T>(what: string, op: (client: Redis) => Promise<T>): Promise<T>;
}

/** Deletes up to `limit` uploads still pending that were made before `createdBefore`. */
export async function sweepPendingFiles(
  store: RedisAccess,
  createdBefore: number,
  limit: number,
): Promise<number> {
  const k = store.keys;
  const members = await store.call('sweepFiles', (c) =>
    c.zrangebyscore(k.pendingFiles, '-inf', `(${createdBefore}`, 'LIMIT', 0, limit),
  );
  let swept = 0;
  for (const member of members) {
    const slash = member.indexOf('/');
    const threadId = member.slice(0, slash);
    const fileId = member.slice(slash + 1);
    const done = await store.call('sweepFiles', (c) =>
      c.eval(
        REMOVE_FILE,
        3,
        k.pendingFiles,
        k.files(threadId),
        k.file(threadId, fileId),
        member,
        fileId,
        '1',
      ),
    );
    if (done === 1) swept++;
  }
  return swept;
}

/** Deletes one upload (`FileStore.remove`). */
export async function removeFile(
  store: RedisAccess,
  threadId: string,
  fileId: string,
): Promise<void> {
  const k = store.keys;
  await store.call('removeFile', (c) =>
    c.eval(
      REMOVE_FILE,
      3,
      k.pendingFiles,
      k.files(threadId),
      k.file(threadId, fileId),
      pendingMember(threadId, fileId),
      fileId,
      '0',
    ),
  );
}
