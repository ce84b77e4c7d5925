import { ResumableError } from '@resumable/protocol';
import { KeyCounts } from '../key-counts.js';
import type { EventStore, ThreadRecord } from '../stores/types.js';

/**
 * Keeps run starts and thread deletions of one thread apart, on this instance. A run is
 * started only while its thread exists and is not being deleted; a deletion waits for the
 * starts already under way (their runs are then cancelled with the thread). Without it, a
 * `POST /runs` that read the thread just before a delete was answered `201` with a run
 * the delete had already missed: a run with no thread, gone from every route.
 */
export class ThreadGuard {
  private readonly deleting = new KeyCounts();
  private readonly starting = new Map<string, Set<Promise<unknown>>>();

  constructor(private readonly store: EventStore) {}

  /**
   * Runs `start` with the thread's record once it is known to exist and not being
   * deleted, else `404`. `known`: the record the caller has just read, not read again (a
   * delete that ended since, and a thread made again under the id with another token, are
   * refused by the store's atomic `createRun`, given the record's token).
   */
  async start<T>(
    threadId: string,
    start: (thread: ThreadRecord) => Promise<T>,
    known?: ThreadRecord,
  ): Promise<T> {
    const run = (async () => {
      // Registered first (this tick), so a deletion that begins from here on waits for it.
      await Promise.resolve();
      const thread =
        this.deleting.get(threadId) > 0 ? null : (known ?? (await this.store.getThread(threadId)));
      if (!thread) throw new ResumableError('thread_not_found', `no thread ${threadId}`);
      return start(thread);
    })();
    const set = this.starting.get(threadId) ?? new Set();
    this.starting.set(threadId, set);
    set.add(run);
    try {
      return await run;
    } finally {
      set.delete(run);
      if (set.size === 0) this.starting.delete(threadId);
    }
  }

  /** Marks the thread as being deleted once the starts under way have settled; `release` ends it. */
  async hold(threadId: string): Promise<() => void> {
    const release = this.deleting.add(threadId);
    await Promise.allSettled([...(this.starting.get(threadId) ?? [])]);
    return release;
  }
}
