import type { Redis } from 'ioredis';
import type { FileStore, StoredFile, ThreadEdits } from '../types.js';
import type { RedisKeys } from './keys.js';
import { pendingMember, removeFile, sweepPendingFiles, TOTAL } from './pending-files.js';

/** What these need of the store: its keys, and `call` (failures as `store_unavailable`). */
interface RedisAccess {
  readonly keys: RedisKeys;
  call<T>(what: string, op: (client: Redis) => Promise<T>): Promise<T>;
}

/** Renaming and deleting threads in the Redis store. */
export class RedisThreadEdits implements ThreadEdits {
  constructor(private readonly store: RedisAccess) {}

  async rename(threadId: string, title: string, updatedAt: number): Promise<boolean> {
    const key = this.store.keys.thread(threadId);
    // HSET only on an existing thread (a rename must not create a token-less hash).
    const reply = await this.store.call('renameThread', (c) =>
      c.eval(RENAME, 1, key, title, String(updatedAt)),
    );
    return reply === 1;
  }

  async remove(threadId: string): Promise<void> {
    const k = this.store.keys;
    const runIds = await this.store.call('removeThread', (c) =>
      c.zrange(k.threadRuns(threadId), '0', '-1'),
    );
    await this.store.call('removeThread', (c) => {
      const multi = c.multi();
      for (const runId of runIds) {
        multi.del(k.run(runId), k.events(runId), k.lease(runId));
        multi.srem(k.running, runId);
        multi.zrem(k.ended, runId);
      }
      multi.del(k.thread(threadId), k.threadRuns(threadId), k.history(threadId));
      multi.del(k.messages(threadId), k.threadEvents(threadId), k.interrupts(threadId));
      return multi.exec();
    });
  }
}

const RENAME = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'title', ARGV[1], 'updatedAt', ARGV[2])
return 1
`;

/**
 * KEYS: files hash, file bytes, pending uploads. ARGV: fileId, file JSON, size, max total,
 * bytes, createdAt, pending member. → 1 stored, 0 over the thread's total (nothing stored).
 */
const PUT_FILE = `#!lua
local used = tonumber(redis.call('HGET', KEYS[1], '${TOTAL}') or '0')
if used + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[2], ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], '${TOTAL}', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[7])
return 1
`;

/** Uploaded files in Redis: a hash of descriptions per thread, a string per file's bytes. */
export class RedisFiles implements FileStore {
  constructor(private readonly store: RedisAccess) {}

  async put(file: StoredFile, bytes: Uint8Array, maxThreadBytes: number): Promise<boolean> {
    const k = this.store.keys;
    const reply = await this.store.call('putFile', (c) =>
      c.eval(
        PUT_FILE,
        3,
        k.files(file.threadId),
        k.file(file.threadId, file.fileId),
        k.pendingFiles,
        file.fileId,
        JSON.stringify(file),
        file.size,
        maxThreadBytes,
        Buffer.from(bytes),
        file.createdAt,
        pendingMember(file.threadId, file.fileId),
      ),
    );
    return reply === 1;
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
    await this.store.call('removeFiles', (c) => c.del(k.files(threadId), ...blobs));
    if (fileIds.length > 0) {
      const members = fileIds.map((id) => pendingMember(threadId, id));
      await this.store.call('removeFiles', (c) => c.zrem(k.pendingFiles, ...members));
    }
  }

  remove(threadId: string, fileId: string): Promise<void> {
    return removeFile(this.store, threadId, fileId);
  }

  async markReferenced(threadId: string, fileId: string): Promise<void> {
    const member = pendingMember(threadId, fileId);
    await this.store.call('markFile', (c) => c.zrem(this.store.keys.pendingFiles, member));
  }

  sweepUnreferenced(createdBefore: number, limit: number): Promise<number> {
    return sweepPendingFiles(this.store, createdBefore, limit);
  }
}
