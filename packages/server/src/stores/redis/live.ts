import type { Cluster, Redis } from 'ioredis';
import { LIVE_BODY_MAX } from '../../defaults.js';
import type { StoredEvent } from '../types.js';
import { subscribeWithRetry, unavailable } from './connection.js';

/** What a tail follows: a stream, and the shard channel its writer publishes batches on. */
export interface LiveSource {
  /** `SPUBLISH`ed with every stored batch (`livePayload`), in the stream's slot. */
  channel: string;
  /** Stored events after `after`, at most `limit`: the catch-up and gap read. */
  read(after: number, limit: number): Promise<StoredEvent[]>;
}

export interface LiveTailsOptions {
  /** The connection in subscriber mode: a `Redis`, or a `Cluster` with sharded subscribers. */
  subscriber: Redis | Cluster;
  /** A tail that heard nothing for this long reads its stream (a message lost in a reconnect). */
  checkMs: number;
  /** Events read per catch-up page. */
  readCount: number;
  log: (message: string) => void;
}

interface Tail {
  name: string;
  source: LiveSource;
  /** Highest offset delivered to this tail. */
  cursor: number;
  /** When it last heard of its stream (a message or a read), `performance.now()`. */
  heardAt: number;
  /** A catch-up read is under way; messages meanwhile only mark it `stale`. */
  reading: boolean;
  stale: boolean;
  stopped: boolean;
  onEvents: (events: StoredEvent[]) => void;
  onError: ((error: unknown) => void) | undefined;
}

interface Channel {
  tails: Set<Tail>;
  /** Resolves once `SSUBSCRIBE` answered (or failed: the checks then read in its stead). */
  subscribed: Promise<void>;
}

/**
 * Live tails of runs (and thread logs) written by any instance, through sharded pub/sub:
 * the writer's script `SPUBLISH`es each stored batch on the stream's own channel, in the
 * stream's slot, so a cluster carries it on the one shard that holds the stream (no
 * cluster-wide broadcast, and no blocking read per slot: `XREAD` cannot span slots).
 *
 * Delivery keeps the `subscribe` contract: each tail gets every event after its cursor,
 * in order, once. Pub/sub may lose a message (a reconnect, a failover), so the offsets
 * are checked: a batch that does not follow the cursor, a message without the events (a
 * large batch), a resubscription and a tail silent for `checkMs` all read the stream from
 * the cursor instead. A failed read ends the tail with `onError` (the manager then reads
 * the store itself, whose errors its clients see as 503s and retry).
 */
export class LiveTails {
  private readonly channels = new Map<string, Channel>();
  private readonly timer: ReturnType<typeof setInterval>;
  private closed = false;

  constructor(private readonly options: LiveTailsOptions) {
    const { subscriber } = options;
    subscriber.on('smessage', (channel: string, message: string) => this.heard(channel, message));
    // Back after a reconnect (ioredis subscribes again): what was published meanwhile is read.
    subscriber.on('ready', () => this.checkAll(0));
    this.timer = setInterval(
      () => this.checkAll(options.checkMs),
      Math.max(50, options.checkMs / 2),
    );
    this.timer.unref?.();
  }

  /** Follows `source` after `after`; the returned function stops it. */
  add(
    name: string,
    source: LiveSource,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void {
    const tail: Tail = {
      name,
      source,
      cursor: after,
      heardAt: performance.now(),
      reading: false,
      stale: false,
      stopped: false,
      onEvents,
      onError,
    };
    if (this.closed) {
      queueMicrotask(() => onError?.(unavailable('the store is closed')));
      return () => {};
    }
    let channel = this.channels.get(source.channel);
    if (!channel) {
      channel = { tails: new Set(), subscribed: this.subscribe(source.channel) };
      this.channels.set(source.channel, channel);
    }
    channel.tails.add(tail);
    // Read what is stored only once subscribed, so nothing falls between the two.
    void channel.subscribed.then(() => this.catchUp(tail));
    return () => this.remove(tail);
  }

  /** Streams followed right now (for tests and metrics). */
  get size(): number {
    return this.channels.size;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const channel of this.channels.values()) {
      for (const tail of channel.tails) tail.stopped = true;
    }
    this.channels.clear();
  }

  /**
   * Resolves after the first `SSUBSCRIBE` (its tails then read what is stored). One that
   * failed is tried again while the channel has tails; until then the tails' checks read
   * the stream every `checkMs`, and once subscribed they read it at once.
   */
  private async subscribe(key: string): Promise<void> {
    await subscribeWithRetry(
      () => this.options.subscriber.ssubscribe(key),
      () => !this.closed && this.channels.has(key),
      (error) => this.options.log(`redis: cannot subscribe to ${key} yet: ${String(error)}`),
      () => this.checkChannel(key),
    );
  }

  private checkChannel(key: string): void {
    for (const tail of this.channels.get(key)?.tails ?? []) void this.catchUp(tail);
  }

  private remove(tail: Tail): void {
    tail.stopped = true;
    const key = tail.source.channel;
    const channel = this.channels.get(key);
    if (!channel?.tails.delete(tail) || channel.tails.size > 0) return;
    this.channels.delete(key);
    void channel.subscribed.then(() => {
      // Subscribed again meanwhile by a new tail: that one keeps the subscription.
      if (this.channels.has(key) || this.closed) return;
      this.options.subscriber.sunsubscribe(key).catch(() => {});
    });
  }

  private heard(key: string, message: string): void {
    const channel = this.channels.get(key);
    if (!channel) return;
    const batch = parseLive(message);
    for (const tail of [...channel.tails]) {
      tail.heardAt = performance.now();
      if (tail.reading) {
        tail.stale = true;
        continue;
      }
      if (batch === null || batch.last <= tail.cursor) continue;
      if (batch.first > tail.cursor + 1 || batch.events === null) {
        // A batch was missed (or this one came without its events): read from the cursor.
        void this.catchUp(tail);
        continue;
      }
      this.deliver(tail, batch.events);
    }
  }

  private checkAll(silentMs: number): void {
    const now = performance.now();
    for (const channel of this.channels.values()) {
      for (const tail of channel.tails) {
        if (!tail.reading && now - tail.heardAt >= silentMs) void this.catchUp(tail);
      }
    }
  }

  /** Reads the stream from the tail's cursor until it has everything stored. */
  private async catchUp(tail: Tail): Promise<void> {
    if (tail.reading || tail.stopped) return;
    tail.reading = true;
    try {
      for (;;) {
        tail.stale = false;
        tail.heardAt = performance.now();
        const events = await tail.source.read(tail.cursor, this.options.readCount);
        if (tail.stopped) return;
        this.deliver(tail, events);
        if (events.length < this.options.readCount && !tail.stale) return;
      }
    } catch (error) {
      if (tail.stopped) return;
      this.remove(tail);
      try {
        tail.onError?.(error);
      } catch (thrown) {
        this.options.log(`a live tail's error handler threw: ${String(thrown)}`);
      }
    } finally {
      tail.reading = false;
    }
  }

  private deliver(tail: Tail, events: StoredEvent[]): void {
    const start = events.findIndex((event) => event.offset === tail.cursor + 1);
    if (start === -1 || tail.stopped) return;
    const fresh = start === 0 ? events : events.slice(start);
    tail.cursor = fresh[fresh.length - 1]!.offset;
    try {
      tail.onEvents(fresh);
    } catch (error) {
      this.options.log(`a live tail of ${tail.name} threw: ${String(error)}`);
    }
  }
}

/**
 * The message announcing a stored batch: `<first>:<last>` and, when the batch is at most
 * `LIVE_BODY_MAX` bytes, its events' JSON, one a line (event JSON holds no raw newline).
 * Built in Lua by the append scripts (see `LIVE_PAYLOAD_LUA`) and here for `SPUBLISH`
 * after a durable append.
 */
export function livePayload(events: readonly StoredEvent[]): string {
  const head = `${events[0]!.offset}:${events[events.length - 1]!.offset}`;
  let size = head.length;
  for (const event of events) size += event.json.length + 1;
  if (size > LIVE_BODY_MAX) return head;
  return [head, ...events.map((event) => event.json)].join('\n');
}

/** A live message read back; `events` null when it carried only the offsets. */
function parseLive(
  message: string,
): { first: number; last: number; events: StoredEvent[] | null } | null {
  const lines = message.split('\n');
  const [first, last] = (lines[0] ?? '').split(':').map(Number);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first! > last!) return null;
  if (lines.length === 1) return { first: first!, last: last!, events: null };
  if (lines.length - 1 !== last! - first! + 1) return { first: first!, last: last!, events: null };
  const events = lines.slice(1).map((json, i) => ({ offset: first! + i, json }));
  return { first: first!, last: last!, events };
}

/**
 * Lua building `livePayload` from a script's ARGV (events from `ARGV[from]` on, the
 * first's offset in `first`) and publishing it on `channel` when that is not ''.
 * Shared by the run and thread-log append scripts.
 */
export const LIVE_PUBLISH_LUA = `
local function publishLive(channel, first, from)
  if channel == '' then return end
  local count = #ARGV - from + 1
  local head = first .. ':' .. (first + count - 1)
  local size = #head
  for i = from, #ARGV do size = size + #ARGV[i] + 1 end
  if size > ${LIVE_BODY_MAX} then
    redis.call('SPUBLISH', channel, head)
    return
  end
  local parts = {head}
  for i = from, #ARGV do parts[#parts + 1] = ARGV[i] end
  redis.call('SPUBLISH', channel, table.concat(parts, '\\n'))
end
`;
