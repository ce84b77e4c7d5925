import type { StoredEvent } from './types.js';

/** The offsets a thread's event log holds: `first..last`, both 0 while it is empty. */
export interface ThreadLogHead {
  /** Oldest offset still kept (older ones were trimmed); 0 when the log is empty. */
  first: number;
  /** Newest offset; 0 before the first event. */
  last: number;
}

/**
 * The per-thread event log behind `GET /threads/{id}/events` (protocol.md, "Thread event
 * stream"): what happens to a thread (runs started and ended, history changes), each under
 * a thread offset 1, 2, 3, … with no gaps. Unlike a run's log, offsets are assigned by the
 * store at append time, so several instances announcing on one thread never collide, and
 * an announcement that was never stored leaves no hole. Only the newest `keep` events stay.
 */
export interface ThreadLogStore {
  /**
   * Appends one event (its JSON, one line) under the thread's next offset, atomically, and
   * trims the log to its newest `keep` events. Resolves the offset, or null (nothing
   * stored) when the thread does not exist. Throws `store_unavailable` when the backend is.
   */
  append(threadId: string, json: string, keep: number): Promise<number | null>;
  /** Events with offset > `after`, ascending, at most `limit`. */
  read(threadId: string, after: number, limit: number): Promise<StoredEvent[]>;
  head(threadId: string): Promise<ThreadLogHead>;
  /**
   * A shared store's live tail of the thread (events appended by any instance after
   * `after`, in order, once each). Without it, the instance that appends publishes.
   */
  subscribe?(
    threadId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void;
}

interface MemoryLog {
  /** Offsets `events[0].offset` … ascending, gapless. */
  events: StoredEvent[];
  last: number;
}

/**
 * The thread logs in this process's memory: the memory store's, and the manager's own for
 * a store that has none (then the logs die with the process, like the memory store).
 */
export class MemoryThreadLog implements ThreadLogStore {
  private readonly logs = new Map<string, MemoryLog>();

  /** @param threadExists whether appends to `threadId` are taken (by default, all). */
  constructor(private readonly threadExists: (threadId: string) => boolean = () => true) {}

  async append(threadId: string, json: string, keep: number): Promise<number | null> {
    if (!this.threadExists(threadId)) return null;
    let log = this.logs.get(threadId);
    if (!log) {
      log = { events: [], last: 0 };
      this.logs.set(threadId, log);
    }
    const offset = ++log.last;
    log.events.push({ offset, json });
    if (log.events.length > keep) log.events.splice(0, log.events.length - Math.max(1, keep));
    return offset;
  }

  async read(threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const events = this.logs.get(threadId)?.events ?? [];
    if (events.length === 0) return [];
    const start = Math.max(0, after + 1 - events[0]!.offset);
    return events.slice(start, start + limit).map((e) => ({ offset: e.offset, json: e.json }));
  }

  async head(threadId: string): Promise<ThreadLogHead> {
    const log = this.logs.get(threadId);
    if (!log || log.events.length === 0) return { first: 0, last: log?.last ?? 0 };
    return { first: log.events[0]!.offset, last: log.last };
  }

  /** Drops a deleted thread's log: a thread made later under its id starts at offset 1. */
  forget(threadId: string): void {
    this.logs.delete(threadId);
  }

  clear(): void {
    this.logs.clear();
  }
}
