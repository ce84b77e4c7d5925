import type { ResumableError } from '@resumable/protocol';
import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import { mergeRecord } from './record-write.js';
import type { RunResumeRecord } from './run-record.js';
import type { RecordStorage } from './storage.js';
import { storageUnavailable } from './storage.js';

/** A record write settled (`observeClient`): where it went, the point it holds, how long. */
export interface ObservedWrite extends ObservedBase {
  /** A run record was written (or failed to be). */
  readonly type: 'write';
  /** The record's storage key (`run:<key>`). */
  readonly record: string;
  /** The run written. */
  readonly runId: string;
  /** The resume point written. */
  readonly offset: number;
  /** Where it went: `indexeddb`, or `memory` (the fallback: lost on reload). */
  readonly storage: 'indexeddb' | 'memory';
  /** From the write's start (after the writes before it) to its end. */
  readonly ms: number;
  /** Why it failed (`storage_unavailable`), or null. */
  readonly error: ResumableError | null;
}

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
  /** The conversation the record is of, told to the observers (`observeClient`). */
  observe?: ObservedScope | undefined;
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
    const { storage, storageKey, observe } = this.options;
    let started = 0;
    this.chain = this.chain
      .then(() => {
        started = Date.now();
        return storage.update(storageKey, (old) => mergeRecord(old, record, replace));
      })
      .then(
        () => observe && this.told(observe, record, started, null),
        (error) => {
          if (observe) this.told(observe, record, started, error);
          this.options.onError(error);
        },
      )
      .then(() => this.options.onStored?.());
    return this.chain;
  }

  private told(
    scope: ObservedScope,
    record: RunResumeRecord,
    started: number,
    failure: unknown,
  ): void {
    if (!observed()) return;
    notify<ObservedWrite>({
      type: 'write',
      endpoint: scope.endpoint,
      key: scope.key,
      record: this.options.storageKey,
      runId: record.runId,
      offset: record.offset,
      storage: this.options.storage.kind,
      ms: Date.now() - started,
      error:
        failure === null ? null : storageUnavailable('could not persist the run record', failure),
    });
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
