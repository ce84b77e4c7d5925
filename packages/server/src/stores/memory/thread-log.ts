import { THREAD_LOG_COMPACT_AFTER } from '../../defaults.js';
import type { StoredEvent, ThreadLogHead, ThreadLogStore } from '../types.js';

interface MemoryLog {
  /** Offsets `events[0].offset` … ascending, gapless. */
  events: StoredEvent[];
  last: number;
}

/** The byte cap a memory store shares between its run events and its thread events. */
export interface ThreadLogBudget {
  /** Makes room for `bytes` more (evicting older events) or throws `store_unavailable`. */
  reserve(bytes: number): void;
  /** `bytes` are no longer kept (trimmed, evicted, or their thread deleted). */
  release(bytes: number): void;
}

/**
 * The thread logs in this process's memory: the memory store's, and the manager's own for
 * a store that has none (then the logs die with the process, like the memory store).
 * With a budget, every kept event's JSON counts against it, and `evictOldest` gives its
 * room back oldest event first across all threads (a resume before it answers `410`).
 */
export class MemoryThreadLog implements ThreadLogStore {
  private readonly logs = new Map<string, MemoryLog>();
  /** Every appended event in append order, for `evictOldest`; trimmed ones are skipped. */
  private order: Array<{ log: MemoryLog; offset: number }> = [];
  private orderHead = 0;
  private kept = 0;

  /**
   * @param threadExists whether appends to `threadId` are taken (by default, all).
   * @param budget the byte cap the events count against (by default, none).
   */
  constructor(
    private readonly threadExists: (threadId: string) => boolean = () => true,
    private readonly budget?: ThreadLogBudget,
  ) {}

  async append(threadId: string, json: string, keep: number): Promise<number | null> {
    if (!this.threadExists(threadId)) return null;
    this.budget?.reserve(json.length);
    let log = this.logs.get(threadId);
    if (!log) {
      log = { events: [], last: 0 };
      this.logs.set(threadId, log);
    }
    const offset = ++log.last;
    log.events.push({ offset, json });
    this.kept++;
    if (this.budget) this.order.push({ log, offset });
    if (log.events.length > keep) this.drop(log, log.events.length - Math.max(1, keep));
    this.compact();
    return offset;
  }

  /**
   * Drops the oldest event kept of any thread (its thread keeps its offsets: a resume
   * before what is left answers `410`). False when no event is kept.
   */
  evictOldest(): boolean {
    while (this.orderHead < this.order.length) {
      const { log, offset } = this.order[this.orderHead++]!;
      // A trimmed event, or one of a deleted thread (its log emptied), is skipped.
      if (log.events[0]?.offset === offset) {
        this.drop(log, 1);
        return true;
      }
    }
    return false;
  }

  async read(threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const events = this.logs.get(threadId)?.events ?? [];
    if (events.length === 0) return [];
    const start = Math.max(0, after + 1 - events[0]!.offset);
    return events.slice(start, start + limit).map((e) => ({ offset: e.offset, json: e.json }));
  }

  async head(threadId: string): Promise<ThreadLogHead> {
    const log = this.logs.get(threadId);
    if (!log) return { first: 0, last: 0 };
    // Every event evicted: none is kept, so any resume point before the last is expired.
    if (log.events.length === 0)
      return { first: log.last === 0 ? 0 : log.last + 1, last: log.last };
    return { first: log.events[0]!.offset, last: log.last };
  }

  /** Drops a deleted thread's log: a thread made later under its id starts at offset 1. */
  forget(threadId: string): void {
    const log = this.logs.get(threadId);
    if (!log) return;
    this.drop(log, log.events.length);
    this.logs.delete(threadId);
  }

  clear(): void {
    for (const log of this.logs.values()) this.drop(log, log.events.length);
    this.logs.clear();
    this.order = [];
    this.orderHead = 0;
  }

  /** Drops the `count` oldest events of `log`, giving their bytes back to the budget. */
  private drop(log: MemoryLog, count: number): void {
    const dropped = log.events.splice(0, count);
    this.kept -= dropped.length;
    this.budget?.release(dropped.reduce((sum, event) => sum + event.json.length, 0));
  }

  /** Keeps `order` within twice the events kept: entries of trimmed events are removed. */
  private compact(): void {
    if (this.order.length <= THREAD_LOG_COMPACT_AFTER || this.order.length <= 2 * this.kept) return;
    this.order = this.order
      .slice(this.orderHead)
      .filter(({ log, offset }) => log.events.length > 0 && offset >= log.events[0]!.offset);
    this.orderHead = 0;
  }
}
