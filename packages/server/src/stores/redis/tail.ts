import { ResumableError } from '@resumable/protocol';
import type { Redis } from 'ioredis';
import type { StoredEvent } from '../types.js';
import { entryId, offsetOf } from './keys.js';

export interface TailReaderOptions {
  /** A connection of its own: it spends its life inside `XREAD BLOCK`. */
  reader: Redis;
  /** Another connection, used to interrupt the reader (`CLIENT UNBLOCK`). */
  control: Redis;
  /** Waits until `reader` is connected, or throws `store_unavailable`. */
  ready: (client: Redis) => Promise<void>;
  /** `XREAD BLOCK` time; a read also ends early whenever a new tail is added. */
  blockMs: number;
  /** Entries read per stream per round. */
  count: number;
  log: (message: string) => void;
}

interface Tail {
  runId: string;
  key: string;
  /** Highest offset delivered to this tail. */
  cursor: number;
  onEvents: (events: StoredEvent[]) => void;
  onError: ((error: unknown) => void) | undefined;
}

/** Bounded retries of `CLIENT UNBLOCK` while a read is on its way to Redis. */
const UNBLOCK_TRIES = 20;
const UNBLOCK_RETRY_MS = 5;
/** While Redis answers the other connection, the reader's own (re)connect gets ~10 s. */
const CONNECT_RETRIES = 200;
const CONNECT_RETRY_MS = 50;

/**
 * One blocking reader per server instance for the live tails of every run it follows:
 * a single `XREAD BLOCK … STREAMS k1 k2 … id1 id2 …` covers them all, so a thousand
 * watched runs cost one connection, not a thousand. Adding a tail interrupts the
 * current read with `CLIENT UNBLOCK` so the new run is read at once, not after `blockMs`.
 *
 * Delivery keeps the `subscribe` contract: each tail gets every event after its cursor,
 * in order, once. When Redis fails, every tail gets `onError` and is dropped (the manager
 * falls back to reading the store, whose errors its clients see as 503s and retries).
 */
export class TailReader {
  /** Tails by stream key. */
  private readonly tails = new Map<string, Set<Tail>>();
  private looping = false;
  private closed = false;
  private idle: (() => void) | null = null;
  /** Redis' id of the reader connection, for `CLIENT UNBLOCK`; null after a reconnect. */
  private readerId: number | null = null;
  /** Bumped whenever the set of streams grows; a read of an older one is interrupted. */
  private generation = 0;
  private inFlight: number | null = null;
  private connectRetries = 0;

  constructor(private readonly options: TailReaderOptions) {
    options.reader.on('close', () => {
      this.readerId = null;
    });
  }

  add(
    runId: string,
    key: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void {
    if (this.closed) {
      queueMicrotask(() => onError?.(unavailable('the store is closed')));
      return () => {};
    }
    const tail: Tail = { runId, key, cursor: after, onEvents, onError };
    let set = this.tails.get(key);
    if (!set) {
      set = new Set();
      this.tails.set(key, set);
    }
    // A new stream, or one read from further back than the read in flight covers.
    if (set.size === 0 || after < minCursor(set)) this.generation++;
    set.add(tail);
    this.kick();
    return () => this.remove(tail);
  }

  /** Streams followed right now (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }

  close(): void {
    this.closed = true;
    this.tails.clear();
    this.idle?.();
  }

  private remove(tail: Tail): void {
    const set = this.tails.get(tail.key);
    if (!set?.delete(tail)) return;
    // A stream nobody follows stays in the current read until it returns: harmless.
    if (set.size === 0) this.tails.delete(tail.key);
  }

  private kick(): void {
    if (!this.looping) {
      this.looping = true;
      void this.loop();
      return;
    }
    if (this.idle) {
      this.idle();
      return;
    }
    void this.interrupt();
  }

  /** Ends a blocked read that does not cover the newest streams. */
  private async interrupt(): Promise<void> {
    for (let i = 0; i < UNBLOCK_TRIES; i++) {
      const stale = this.inFlight !== null && this.inFlight < this.generation;
      if (!stale || this.readerId === null) return;
      try {
        const unblocked = await this.options.control.client('UNBLOCK', this.readerId);
        if (unblocked === 1) return;
      } catch {
        return;
      }
      // Not blocked yet: the read is still on its way to Redis.
      await new Promise((resolve) => setTimeout(resolve, UNBLOCK_RETRY_MS));
    }
  }

  private async loop(): Promise<void> {
    const { reader, blockMs, count } = this.options;
    try {
      while (!this.closed) {
        if (this.tails.size === 0) {
          await new Promise<void>((resolve) => {
            this.idle = resolve;
          });
          this.idle = null;
          continue;
        }
        const keys = [...this.tails.keys()];
        const ids = keys.map((key) => entryId(minCursor(this.tails.get(key)!)));
        let reply: unknown;
        try {
          if (reader.status !== 'ready' && this.options.control.status === 'ready') {
            // Redis is up and only this connection is not (yet): wait for it rather than
            // fail every tail. Bounded by the retry count below.
            if (++this.connectRetries <= CONNECT_RETRIES) {
              await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_MS));
              continue;
            }
          }
          await this.options.ready(reader);
          this.connectRetries = 0;
          if (this.readerId === null) this.readerId = Number(await reader.client('ID'));
          this.inFlight = this.generation;
          reply = await reader.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...keys, ...ids);
        } catch (error) {
          if (this.closed) return;
          this.failAll(error);
          continue;
        } finally {
          this.inFlight = null;
        }
        if (reply) this.deliver(reply as XReadReply);
      }
    } finally {
      this.looping = false;
    }
  }

  private deliver(reply: XReadReply): void {
    for (const [key, entries] of reply) {
      const set = this.tails.get(key);
      if (!set || entries.length === 0) continue;
      const events: StoredEvent[] = entries.map(([id, fields]) => ({
        offset: offsetOf(id),
        json: fieldValue(fields, 'e'),
      }));
      for (const tail of [...set]) {
        if (!set.has(tail)) continue;
        // Only a continuation of what the tail has: a tail added behind a read in flight
        // waits for the next read, which starts from the lowest cursor.
        const start = events.findIndex((event) => event.offset === tail.cursor + 1);
        if (start === -1) continue;
        const fresh = start === 0 ? events : events.slice(start);
        tail.cursor = fresh[fresh.length - 1]!.offset;
        try {
          tail.onEvents(fresh);
        } catch (error) {
          this.options.log(`a live tail of run ${tail.runId} threw: ${String(error)}`);
        }
      }
    }
  }

  private failAll(error: unknown): void {
    const wrapped =
      error instanceof ResumableError
        ? error
        : unavailable(`the live tail lost Redis: ${messageOf(error)}`, error);
    const all = [...this.tails.values()].flatMap((set) => [...set]);
    this.tails.clear();
    for (const tail of all) {
      try {
        tail.onError?.(wrapped);
      } catch (thrown) {
        this.options.log(`a live tail's error handler threw: ${String(thrown)}`);
      }
    }
  }
}

/** RESP2 `XREAD` reply: [[key, [[id, [field, value, …]], …]], …]. */
type XReadReply = Array<[string, Array<[string, string[]]>]>;

function minCursor(set: Set<Tail>): number {
  let min = Number.POSITIVE_INFINITY;
  for (const tail of set) min = Math.min(min, tail.cursor);
  return min;
}

function fieldValue(fields: string[], name: string): string {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1]!;
  return 'null';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function unavailable(message: string, cause?: unknown): ResumableError {
  return new ResumableError('store_unavailable', message, cause === undefined ? {} : { cause });
}
