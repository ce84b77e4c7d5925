import { ResumableError } from '@resumable/protocol';
import { REDIS_DELETE_CHUNK, REDIS_UPLOAD_TTL_MS } from '../../defaults.js';
import type { FileStore, FileUpload, StoredFile, ThreadEdits } from '../types.js';
import type { RedisClient } from './connection.js';
import { type RedisKeys, runMember } from './keys.js';
import { pendingMember, removeFile, sweepPendingFiles, TOTAL } from './pending-files.js';
import type { RunIndex } from './run-index.js';
import { DELETE_KEYS } from './scripts.js';

/** What these need of the store: its keys, and `call` (failures as `store_unavailable`). */
interface RedisAccess {
  readonly keys: RedisKeys;
  call<T>(what: string, op: (client: RedisClient) => Promise<T>): Promise<T>;
}

/** Renaming and deleting threads in the Redis store. */
export class RedisThreadEdits implements ThreadEdits {
  constructor(private readonly store: RedisAccess & { readonly runs: RunIndex }) {}

  async rename(threadId: string, title: string, updatedAt: number): Promise<boolean> {
    const key = this.store.keys.thread(threadId);
    // HSET only on an existing thread (a rename must not create a token-less hash).
    const reply = await this.store.call('renameThread', (c) =>
      c.eval(RENAME, 1, key, title, String(updatedAt)),
    );
    return reply === 1;
  }

  /**
   * Leaves the thread's tombstone first (`createThread` refuses its id from then on), then
   * deletes the thread's keys (all in its slot; the thread's own hash last, so a deletion
   * cut short is done again by the next one), then what points at them from outside: its
   * runs' ids and their index entries.
   */
  async remove(threadId: string, options?: { tombstone?: boolean }): Promise<void> {
    const k = this.store.keys;
    if (options?.tombstone !== false) {
      await this.store.call('removeThread', (c) => c.set(k.deleted(threadId), String(Date.now())));
    }
    const runIds = await this.store.call('removeThread', (c) =>
      c.zrange(k.threadRuns(threadId), '0', '-1'),
    );
    const keys = runIds.flatMap((runId) => [
      k.run(threadId, runId),
      k.events(threadId, runId),
      k.lease(threadId, runId),
    ]);
    keys.push(
      k.threadRunning(threadId),
      k.history(threadId),
      k.messages(threadId),
      k.threadEvents(threadId),
      k.interrupts(threadId),
      k.threadRate(threadId, 'runs'),
      k.threadRate(threadId, 'uploads'),
      k.threadRuns(threadId),
      k.thread(threadId),
    );
    for (let i = 0; i < keys.length; i += REDIS_DELETE_CHUNK) {
      const chunk = keys.slice(i, i + REDIS_DELETE_CHUNK);
      await this.store.call('removeThread', (c) => c.eval(DELETE_KEYS, chunk.length, ...chunk));
    }
    if (runIds.length === 0) return;
    const members = runIds.map((runId) => runMember(threadId, runId));
    await this.store.call('removeThread', (c) => c.zrem(k.activeRuns, ...members));
    await this.store.call('removeThread', (c) => c.zrem(k.endedRuns, ...members));
    await this.store.runs.forget(runIds);
  }
}

const RENAME = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'title', ARGV[1], 'updatedAt', ARGV[2])
return 1
`;

/**
 * KEYS: files hash, the upload's bytes, the file's bytes, the thread's pending uploads
 * (set). ARGV: fileId, file JSON, size, max total. → 1 stored, 0 over the thread's total
 * (the upload dropped), -1 the upload's bytes are not all there (expired: dropped).
 */
const COMMIT_FILE = `#!lua
local size = tonumber(ARGV[3])
local used = tonumber(redis.call('HGET', KEYS[1], '${TOTAL}') or '0')
if used + size > tonumber(ARGV[4]) then
  redis.call('DEL', KEYS[2])
  return 0
end
if redis.call('STRLEN', KEYS[2]) ~= size then
  redis.call('DEL', KEYS[2])
  return -1
end
if size == 0 then
  redis.call('SET', KEYS[3], '')
else
  redis.call('RENAME', KEYS[2], KEYS[3])
  redis.call('PERSIST', KEYS[3])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], '${TOTAL}', size)
redis.call('SADD', KEYS[4], ARGV[1])
return 1
`;

/** Uploaded files in Redis: a hash of descriptions per thread, a string per file's bytes. */
export class RedisFiles implements FileStore {
  constructor(private readonly store: RedisAccess) {}

  upload(threadId: string, fileId: string): FileUpload {
    const k = this.store.keys;
    const key = k.upload(threadId, fileId);
    return {
      write: async (bytes) => {
        await this.store.call('writeFile', async (c) => {
          const replies = await c
            .multi()
            .append(key, Buffer.from(bytes))
            .pexpire(key, REDIS_UPLOAD_TTL_MS)
            .exec();
          const failed = replies?.find(([error]) => error);
          if (failed) throw failed[0];
        });
      },
      commit: async (file, maxThreadBytes) => {
        // The sweep's index first: a stored upload is always found by it (an entry whose
        // file was not stored is dropped by the sweep, or below).
        const member = pendingMember(file.threadId, file.fileId);
        await this.store.call('putFile', (c) => c.zadd(k.pendingFiles, file.createdAt, member));
        const reply = await this.store.call('putFile', (c) =>
          c.eval(
            COMMIT_FILE,
            4,
            k.files(threadId),
            key,
            k.file(threadId, fileId),
            k.threadPendingFiles(threadId),
            fileId,
            JSON.stringify(file),
            file.size,
            maxThreadBytes,
          ),
        );
        if (reply !== 1) {
          await this.store.call('putFile', (c) => c.zrem(k.pendingFiles, member)).catch(() => 0);
        }
        if (reply === -1) {
          throw new ResumableError(
            'store_unavailable',
            `upload ${threadId}/${fileId}: its bytes were not all kept in Redis`,
          );
        }
        return reply === 1;
      },
      abort: async () => {
        await this.store.call('abortFile', (c) => c.del(key));
      },
    };
  }

  async head(threadId: string, fileId: string): Promise<StoredFile | null> {
    const json = await this.store.call('headFile', (c) =>
      c.hget(this.store.keys.files(threadId), fileId),
    );
    return json && fileId !== TOTAL ? (JSON.parse(json) as StoredFile) : null;
  }

  async get(threadId: string, fileId: string) {
    const file = await this.head(threadId, fileId);
    if (!file) return null;
    const bytes = await this.store.call('getFile', (c) =>
      c.getBuffer(this.store.keys.file(threadId, fileId)),
    );
    return bytes ? { file, bytes: new Uint8Array(bytes) } : null;
  }

  async removeThread(threadId: string): Promise<void> {
    const k = this.store.keys;
    const ids = await this.store.call('removeFiles', (c) => c.hkeys(k.files(threadId)));
    const fileIds = ids.filter((id) => id !== TOTAL);
    const blobs = fileIds.map((id) => k.file(threadId, id));
    const keys = [k.files(threadId), k.threadPendingFiles(threadId), ...blobs];
    for (let i = 0; i < keys.length; i += REDIS_DELETE_CHUNK) {
      const chunk = keys.slice(i, i + REDIS_DELETE_CHUNK);
      await this.store.call('removeFiles', (c) => c.eval(DELETE_KEYS, chunk.length, ...chunk));
    }
    if (fileIds.length > 0) {
      const members = fileIds.map((id) => pendingMember(threadId, id));
      await this.store.call('removeFiles', (c) => c.zrem(k.pendingFiles, ...members));
    }
  }

  remove(threadId: string, fileId: string): Promise<void> {
    return removeFile(this.store, threadId, fileId);
  }

  /** Named by a prompt: no longer pending in its thread's slot (what the sweep checks). */
  async markReferenced(threadId: string, fileId: string): Promise<void> {
    const k = this.store.keys;
    await this.store.call('markFile', (c) => c.srem(k.threadPendingFiles(threadId), fileId));
    const member = pendingMember(threadId, fileId);
    await this.store.call('markFile', (c) => c.zrem(k.pendingFiles, member)).catch(() => 0);
  }

  sweepUnreferenced(createdBefore: number, limit: number): Promise<number> {
    return sweepPendingFiles(this.store, createdBefore, limit);
  }
}
