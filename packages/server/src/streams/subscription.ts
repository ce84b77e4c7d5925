import { encodeFrameJson, PING_FRAME } from '@resumable/protocol';
import {
  CHUNK_BYTES,
  COALESCE_MIN_SUBSCRIBERS,
  PAGE_EVENTS,
  QUEUE_LOW_WATER,
  UNIT_BYTES,
} from '../defaults.js';
import { sleep } from '../sleep.js';
import type { EventStore, StoredEvent } from '../stores/types.js';

const encoder = new TextEncoder();
/** One `: ping` chunk for every stream: nothing writes to a chunk once it is enqueued. */
const PING_BYTES = encoder.encode(PING_FRAME);

/** A published batch; `bytes` is its SSE encoding, made by the first subscriber needing it. */
export interface Batch {
  events: readonly StoredEvent[];
  bytes: Uint8Array | null;
}

function encodeBatch(events: readonly StoredEvent[]): Uint8Array {
  let text = '';
  for (const event of events) text += encodeFrameJson(event.offset, event.json);
  return encoder.encode(text);
}

/**
 * Where live events of one run come from: the local producer, or a store's cross-instance
 * tail. `lastPublished` only ever moves when events are delivered, after they are in the
 * store, which is what lets a subscriber switch from reading the store to listening
 * without missing any.
 *
 * With many subscribers, deliveries are throttled on the leading edge: a batch goes out at
 * once if the previous one left at least `coalesceMs` ago, else it waits for the rest of
 * that window with whatever follows it. A fast run to a thousand streams then costs one
 * socket write per stream per window instead of one per event, and a slow run is not
 * delayed at all. The terminal event is never held back.
 */
export class Hub {
  readonly subscribers = new Set<Subscription>();
  lastPublished: number;
  /** Offset of the terminal event once it has been published. */
  terminalOffset: number | null = null;
  /** True when no more events will come through this hub (ended, failed or shut down). */
  closed = false;
  /** For a remote tail: stops it. */
  stopTail: (() => void) | null = null;
  /**
   * Events published but not stored yet (held by the producer through a store outage),
   * after an offset: what a catching-up subscriber reads when the store has nothing more.
   */
  held: (after: number) => readonly StoredEvent[] = () => [];
  private pending: StoredEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastDelivery = 0;

  constructor(
    readonly runId: string,
    lastPublished: number,
    private readonly coalesceMs = 0,
  ) {
    this.lastPublished = lastPublished;
  }

  publish(events: readonly StoredEvent[], terminal: boolean): void {
    if (events.length === 0) return;
    for (const event of events) this.pending.push(event);
    const now = performance.now();
    const wait = this.coalesceMs - (now - this.lastDelivery);
    if (terminal || wait <= 0 || this.subscribers.size < COALESCE_MIN_SUBSCRIBERS) {
      this.deliver(terminal);
    } else {
      this.timer ??= setTimeout(() => this.deliver(false), wait);
    }
  }

  /** No more events through this hub; subscribers fall back to the store. */
  shut(): void {
    this.deliver(false);
    this.closed = true;
    for (const sub of this.subscribers) sub.wake();
  }

  private deliver(terminal: boolean): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const events = this.pending;
    const last = events[events.length - 1];
    if (!last) return;
    this.pending = [];
    this.lastDelivery = performance.now();
    this.lastPublished = last.offset;
    if (terminal) {
      this.terminalOffset = last.offset;
      this.closed = true;
    }
    if (this.subscribers.size === 0) return;
    // Encoded once for every subscriber that is exactly at the batch's start (the usual
    // case): fan-out to a thousand streams costs one JSON-to-bytes pass, not a thousand.
    const batch: Batch = { events, bytes: null };
    for (const sub of this.subscribers) sub.push(batch);
  }
}

/** What a subscription reads: a run's log in the store (or a thread's, adapted). */
export type SubscriptionSource = Pick<EventStore, 'readEvents' | 'getRun'>;

export interface SubscriptionOptions {
  store: SubscriptionSource;
  runId: string;
  after: number;
  /** Live feed, when the run is still being produced (here or through a store tail). */
  hub: Hub | null;
  /** Known when the run had ended at subscribe time. */
  terminalOffset: number | null;
  /** A live subscriber with more than this many events queued is disconnected. */
  bufferEvents: number;
  /** How often to re-check the store for a run with no live feed. */
  pollMs: number;
  onClose: (sub: Subscription) => void;
}

/**
 * One SSE response: replays the store from the resume point, then follows the run live,
 * and closes the body right after the terminal event.
 *
 * Two modes. `catchup` reads pages from the store, only while the client keeps up (the
 * stream's pull), so a replay of a huge log holds one page in memory. `live` takes events
 * pushed by the hub. A gap in what is pushed (the hub ran ahead while this stream was
 * paused) switches back to `catchup`. A live client that falls more than `bufferEvents`
 * behind is disconnected: its body ends without a terminal event and it resumes by offset,
 * so the producer never waits for anyone and memory stays bounded.
 */
export class Subscription {
  readonly stream: ReadableStream<Uint8Array>;
  readonly runId: string;
  cursor: number;
  lastWrite = Date.now();
  private mode: 'catchup' | 'live' = 'catchup';
  private closed = false;
  private pumping = false;
  private terminalOffset: number | null;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly abort = new AbortController();
  private readonly sizes = new WeakMap<Uint8Array, number>();
  private readonly closeListeners: Array<() => void> = [];
  /** Events the next replay page asks for (fewer after a page of large events). */
  private pageEvents = PAGE_EVENTS;

  constructor(private readonly options: SubscriptionOptions) {
    this.runId = options.runId;
    this.cursor = options.after;
    this.terminalOffset = options.terminalOffset;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          void this.pump();
        },
        cancel: () => this.close(false),
      },
      { highWaterMark: QUEUE_LOW_WATER, size: (chunk) => this.sizes.get(chunk) ?? 1 },
    );
    options.hub?.subscribers.add(this);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Calls `listener` once the stream has closed (at once if it has). */
  onClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Events the client has not taken yet. */
  private get queued(): number {
    return QUEUE_LOW_WATER - (this.controller.desiredSize ?? 0);
  }

  /** From the hub: events just stored, in order. */
  push(batch: Batch): void {
    if (this.closed || this.mode !== 'live') return;
    const { events } = batch;
    const first = events[0]!.offset;
    if (first > this.cursor + 1) {
      this.mode = 'catchup';
      void this.pump();
      return;
    }
    if (first === this.cursor + 1) {
      batch.bytes ??= encodeBatch(events);
      const last = events[events.length - 1]!.offset;
      this.cursor = last;
      this.enqueue(batch.bytes, events.length);
    } else {
      this.write(events);
    }
    // Also when the terminal event was already read from the store (it can be stored and
    // read a moment before it is published): nothing follows it, the body ends.
    const terminal = this.options.hub?.terminalOffset ?? null;
    if (terminal !== null && this.cursor >= terminal) this.close(true);
    if (!this.closed && this.queued > this.options.bufferEvents) this.close(true);
  }

  /** The hub closed without a terminal event: read what is left from the store. */
  wake(): void {
    if (this.closed) return;
    this.mode = 'catchup';
    void this.pump();
  }

  /** Sends `: ping` when nothing was written for `idleMs` and the client is keeping up. */
  ping(now: number, idleMs: number): void {
    if (this.closed || now - this.lastWrite < idleMs || this.queued > 0) return;
    this.enqueue(PING_BYTES, 0);
  }

  /**
   * Ends the response. `graceful` lets the client read what is queued first (server-side
   * drop, slow client, shutdown); otherwise the client is gone and the queue is dropped.
   */
  close(graceful = true): void {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.options.hub?.subscribers.delete(this);
    if (graceful) {
      try {
        this.controller.close();
      } catch {
        // already closed or errored by the consumer
      }
    }
    this.options.onClose(this);
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.closed || this.mode !== 'catchup') return;
    this.pumping = true;
    const { store, runId, hub } = this.options;
    try {
      while (!this.closed && this.mode === 'catchup' && this.queued < QUEUE_LOW_WATER) {
        const events = await store.readEvents(runId, this.cursor, this.pageEvents);
        if (this.closed) return;
        if (events.length > 0) {
          this.pageEvents = pageEventsAfter(events);
          this.write(events);
          // Caught up with what the producer published: live now, in the same tick as the
          // check. Waiting for an empty page instead, a replay chasing a run that appends
          // faster than one store read (Redis: each read a round trip) never went live -
          // it kept reading pages, and a client that stopped reading was never cut.
          if (hub && !hub.closed && this.cursor >= hub.lastPublished) this.mode = 'live';
          continue;
        }
        const terminal = this.terminalOffset ?? hub?.terminalOffset ?? null;
        // At the terminal event: done. Short of it with nothing to read: retention pruned
        // the events of this ended run mid-replay (a terminal event is stored before it is
        // known here). End the body; the reconnect gets 410. Reading again would spin.
        if (terminal !== null) {
          this.close(true);
          return;
        }
        if (hub && !hub.closed) {
          // Same tick as the check: nothing can be published in between.
          if (this.cursor >= hub.lastPublished) {
            this.mode = 'live';
            continue;
          }
          // Published but not stored yet (a store outage): read it from the producer.
          const held = hub.held(this.cursor);
          if (held.length > 0) this.write(held);
          else await sleep(this.options.pollMs, this.abort.signal);
          continue;
        }
        // No live feed (ended elsewhere, or a shared store without a tail): ask the store.
        const run = await store.getRun(runId);
        if (this.closed) return;
        if (run?.status !== 'running') {
          this.terminalOffset = run?.lastOffset ?? this.cursor;
          if (this.cursor >= this.terminalOffset) this.close(true);
          continue;
        }
        await sleep(this.options.pollMs, this.abort.signal);
      }
    } catch (error) {
      // The store failed mid-replay: end the body; the client resumes from what it got.
      console.error(`[resumable] replay of run ${runId} failed:`, error);
      this.close(true);
    } finally {
      this.pumping = false;
    }
  }

  private write(events: readonly StoredEvent[]): void {
    let text = '';
    let count = 0;
    let terminalSeen = false;
    const terminal = this.terminalOffset ?? this.options.hub?.terminalOffset ?? null;
    for (const event of events) {
      if (event.offset <= this.cursor) continue;
      if (event.offset !== this.cursor + 1) break;
      text += encodeFrameJson(event.offset, event.json);
      this.cursor = event.offset;
      count++;
      if (terminal !== null && event.offset >= terminal) {
        terminalSeen = true;
        break;
      }
      if (text.length >= CHUNK_BYTES) break;
    }
    if (count > 0) this.enqueue(encoder.encode(text), count);
    if (terminalSeen) this.close(true);
  }

  private enqueue(chunk: Uint8Array, events: number): void {
    this.sizes.set(chunk, Math.max(events, Math.floor(chunk.byteLength / UNIT_BYTES)));
    try {
      this.controller.enqueue(chunk);
      this.lastWrite = Date.now();
    } catch {
      this.close(false);
    }
  }
}

/** The events the next page may ask for: about `CHUNK_BYTES` of events like these. */
function pageEventsAfter(events: readonly StoredEvent[]): number {
  let bytes = 0;
  for (const event of events) bytes += event.json.length;
  const fit = Math.floor((events.length * CHUNK_BYTES) / Math.max(bytes, 1));
  return Math.min(PAGE_EVENTS, Math.max(1, fit));
}
