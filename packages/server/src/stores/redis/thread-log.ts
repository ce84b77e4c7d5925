import type { Redis } from 'ioredis';
import type { StoredEvent, ThreadLogHead, ThreadLogStore } from '../types.js';
import { entryId, offsetOf, type RedisKeys } from './keys.js';
import type { TailReader } from './tail.js';

/**
 * KEYS: thread, thread's events (stream). ARGV: event JSON, keep.
 * → the new offset, or -1 when the thread does not exist.
 * The next offset follows the newest entry (the trim keeps at least one), so offsets stay
 * 1..N per thread whichever instance appends.
 */
const APPEND = `#!lua
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local offset = 1
if #newest > 0 then offset = tonumber(string.match(newest[1][1], '^(%d+)')) + 1 end
redis.call('XADD', KEYS[2], 'MAXLEN', math.max(1, tonumber(ARGV[2])), offset .. '-0', 'e', ARGV[1])
return offset
`;

/** KEYS: thread's events. → {first, last} entry ids ('' when empty), read together. */
const HEAD = `#!lua flags=no-writes
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #first == 0 then return {'', ''} end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
return {first[1][1], last[1][1]}
`;

/** What the thread log borrows from its `RedisStore` (read when used, not when built). */
export interface RedisThreadLogParts {
  readonly keys: RedisKeys;
  /** One operation on the main connection; a Redis failure becomes `store_unavailable`. */
  call<T>(what: string, op: (client: Redis) => Promise<T>): Promise<T>;
  /** The shared `XREAD BLOCK` reader. */
  tailReader(): TailReader;
}

/**
 * The Redis store's thread logs: one stream per thread (`thread:<id>:events`, entry id =
 * offset, trimmed to the newest `keep` with an exact `MAXLEN`), appended by a script so
 * two instances announcing at once get consecutive offsets. Live tails go through the
 * store's one blocking reader, so a run started on instance A reaches a thread stream
 * open on instance B.
 */
export class RedisThreadLog implements ThreadLogStore {
  constructor(private readonly parts: RedisThreadLogParts) {}

  private stream(threadId: string): string {
    return this.parts.keys.threadEvents(threadId);
  }

  async append(threadId: string, json: string, keep: number): Promise<number | null> {
    const key = this.parts.keys.thread(threadId);
    const reply = await this.parts.call('threadAppend', (c) =>
      c.eval(APPEND, 2, key, this.stream(threadId), json, keep),
    );
    return reply === -1 ? null : Number(reply);
  }

  async read(threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const entries = (await this.parts.call('threadRead', (c) =>
      c.xrange(this.stream(threadId), entryId(after + 1), '+', 'COUNT', limit),
    )) as Array<[string, string[]]>;
    return entries.map(([id, fields]) => ({ offset: offsetOf(id), json: fields[1] ?? 'null' }));
  }

  async head(threadId: string): Promise<ThreadLogHead> {
    const [first, last] = (await this.parts.call('threadHead', (c) =>
      c.eval(HEAD, 1, this.stream(threadId)),
    )) as [string, string];
    return first === '' ? { first: 0, last: 0 } : { first: offsetOf(first), last: offsetOf(last) };
  }

  subscribe(
    threadId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void {
    return this.parts.tailReader().add(threadId, this.stream(threadId), after, onEvents, onError);
  }
}
