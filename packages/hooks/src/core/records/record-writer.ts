import { mergeRecord } from './record-write.js';
import type { RunResumeRecord } from './run-record.js';
import type { RecordStorage } from './storage.js';

export interface WriterOptions {
  storage: RecordStorage;
  storageKey: string;
  /** Produces the record to write, at write time (so a delayed write is never stale). */
  produce(): RunResumeRecord | null;
  /** Least time between two throttled writes, in ms (250 ms = at most 4 writes a second). */
  minIntervalMs: number;
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  onError(error: unknown): void;
  /** After each write settles (storage may have fallen back to memory meanwhile). */
  onStored?(): void;
}

/**
 * Throttled, serialized, monotonic record writes. While a run streams, `schedule()` after
 * every batch costs nothing until the interval has passed; `flush()` (terminal event,
 * pagehide) writes now. Writes are chained so they reach storage in order.
 */
export class RecordWriter {
  private dirty = false;
  /** The next write carries a snapshot replacement (see `mergeRecord`). */
  private replacing = false;
  private timer: unknown;
  private last = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();
  /** Writes issued so far (the bench reports writes per second). */
  writes = 0;

  constructor(private readonly options: WriterOptions) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer !== undefined) return;
    // +1: `now()` is usually Date.now(), whole milliseconds, so "last" may read up to 1 ms
    // early; without the margin two writes can land 249.x ms apart, just over 4 a second.
    const wait = this.last + this.options.minIntervalMs + 1 - this.options.now();
    if (wait <= 0) {
      void this.flush();
      return;
    }
    this.timer = this.options.setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait);
  }

  /**
   * The state was replaced by the server's snapshot: the next write may move the stored
   * record back to the snapshot's offset (`mergeRecord`'s `replace`). Scheduled like any
   * change; `flush()` to write it now.
   */
  replace(): void {
    this.replacing = true;
    this.schedule();
  }

  /** Marks the record changed without scheduling: the caller flushes. */
  touch(): void {
    this.dirty = true;
  }

  /** Writes the current record now if anything changed; resolves when it is stored. */
  flush(): Promise<void> {
    if (this.timer !== undefined) {
      this.options.clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.dirty) return this.chain;
    this.dirty = false;
    const record = this.options.produce();
    if (record === null) return this.chain;
    const replace = this.replacing;
    this.replacing = false;
    this.last = this.options.now();
    this.writes++;
    const { storage, storageKey } = this.options;
    this.chain = this.chain
      .then(() => storage.update(storageKey, (old) => mergeRecord(old, record, replace)))
      .catch((error) => this.options.onError(error))
      .then(() => this.options.onStored?.());
    return this.chain;
  }

  /** Drops a pending write (the record is being deleted). */
  cancel(): void {
    this.dirty = false;
    this.replacing = false;
    if (this.timer !== undefined) {
      this.options.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Resolves once every write issued so far has settled. */
  idle(): Promise<void> {
    return this.chain;
  }
}
