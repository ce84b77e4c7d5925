import type { StoredEvent, ThreadLogHead, ThreadLogStore } from '../types.js';
import type { RedisClient } from './connection.js';
import { offsetOf, type RedisKeys } from './keys.js';
import { LIVE_PUBLISH_LUA, type LiveTails, livePayload } from './live.js';

/**
 * KEYS: thread, thread's events (stream). ARGV: keep, live channel ('' = publish nothing
 * here), event JSON. → the new offset, or -1 when the thread does not exist.
 * The next offset follows the newest entry (the trim keeps at least one), so offsets stay
 * 1..N per thread whichever instance appends.
 */
const APPEND = `#!lua
${LIVE_PUBLISH_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local offset = 1
if #newest > 0 then offset = tonumber(string.match(newest[1][1], '^(%d+)')) + 1 end
redis.call('XADD', KEYS[2], 'MAXLEN', math.max(1, tonumber(ARGV[1])), offset .. '-0', 'e', ARGV[3])
publishLive(ARGV[2], offset, 3)
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
  call<T>(what: string, op: (client: RedisClient) => Promise<T>): Promise<T>;
  /** The script and `WAIT` in one pipeline on `key`'s append connection, when appends must reach a replica first. */
  durably<T>(
    what: string,
    key: string,
    build: (pipeline: import('ioredis').ChainableCommander) => void,
  ): Promise<T>;
  /** Whether appends wait for a replica (`durableAppends`). */
  readonly durable: boolean;
  readStream(key: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** The instance's live tails (sharded pub/sub). */
  liveTails(): LiveTails;
}

/**
 * The Redis store's thread logs: one stream per thread (`{<id>}:events`, entry id =
 * offset, trimmed to the newest `keep` with an exact `MAXLEN`), appended by a script so
 * two instances announcing at once get consecutive offsets. Each stored event is
 * published on the thread's shard channel, so a run started on instance A reaches a
 * thread stream open on instance B.
 */
export class RedisThreadLog implements ThreadLogStore {
  constructor(private readonly parts: RedisThreadLogParts) {}

  private stream(threadId: string): string {
    return this.parts.keys.threadEvents(threadId);
  }

  async append(threadId: string, json: string, keep: number): Promise<number | null> {
    const { keys, durable } = this.parts;
    const live = keys.threadLive(threadId);
    const args = [keys.thread(threadId), this.stream(threadId), keep, durable ? '' : live, json];
    const reply = durable
      ? await this.parts.durably('threadAppend', threadId, (p) => p.eval(APPEND, 2, ...args))
      : await this.parts.call('threadAppend', (c) => c.eval(APPEND, 2, ...args));
    if (reply === -1) return null;
    const offset = Number(reply);
    if (durable) {
      const payload = livePayload([{ offset, json }]);
      void this.parts.call('threadPublish', (c) => c.spublish(live, payload)).catch(() => 0);
    }
    return offset;
  }

  async read(threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    return this.parts.readStream(this.stream(threadId), after, limit);
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
    const stream = this.stream(threadId);
    const source = {
      channel: this.parts.keys.threadLive(threadId),
      read: (from: number, limit: number) => this.parts.readStream(stream, from, limit),
    };
    return this.parts.liveTails().add(`thread ${threadId}`, source, after, onEvents, onError);
  }
}
