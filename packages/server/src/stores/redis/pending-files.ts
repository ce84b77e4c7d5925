import type { RedisClient } from './connection.js';
import type { RedisKeys } from './keys.js';

/** The running total of a thread's file sizes, beside the file ids in the same hash. */
export const TOTAL = ':bytes';

/** The member of `files:pending` naming one upload (`/` is outside the id alphabet). */
export const pendingMember = (threadId: string, fileId: string) => `${threadId}/${fileId}`;

/**
 * KEYS: files hash, file bytes, the thread's pending uploads (set). ARGV: fileId, '1' to
 * delete it only if it is still pending (no prompt named it since: the sweep), '0' in any
 * case. Deletes the upload with its share of the thread's total. → 1 deleted, 0 not.
 * Whether a file is pending is decided in its thread's slot, so a prompt that named it
 * (`markReferenced`) and the sweep cannot both win.
 */
const REMOVE_FILE = `#!lua
if redis.call('SREM', KEYS[3], ARGV[1]) == 0 and ARGV[2] == '1' then return 0 end
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[1], '${TOTAL}', -cjson.decode(json).size)
redis.call('DEL', KEYS[2])
return 1
`;

interface RedisAccess {
  readonly keys: RedisKeys;
  call<T>(what: string, op: (client: RedisClient) => Promise<T>): Promise<T>;
}

/**
 * Deletes up to `limit` uploads still pending that were made before `createdBefore`.
 * `files:pending` is only where the sweep finds candidates (it spans threads, so it is a
 * key of its own): each is deleted by the script in its thread's slot, and only if it is
 * still pending there.
 */
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
    if (await deleteFile(store, threadId, fileId, true)) swept++;
    await store.call('sweepFiles', (c) => c.zrem(k.pendingFiles, member));
  }
  return swept;
}

/** Deletes one upload (`FileStore.remove`). */
export async function removeFile(
  store: RedisAccess,
  threadId: string,
  fileId: string,
): Promise<void> {
  await deleteFile(store, threadId, fileId, false);
  const member = pendingMember(threadId, fileId);
  await store.call('removeFile', (c) => c.zrem(store.keys.pendingFiles, member));
}

async function deleteFile(
  store: RedisAccess,
  threadId: string,
  fileId: string,
  onlyIfPending: boolean,
): Promise<boolean> {
  const k = store.keys;
  const done = await store.call('removeFile', (c) =>
    c.eval(
      REMOVE_FILE,
      3,
      k.files(threadId),
      k.file(threadId, fileId),
      k.threadPendingFiles(threadId),
      fileId,
      onlyIfPending ? '1' : '0',
    ),
  );
  return done === 1;
}
