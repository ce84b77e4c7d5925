import { ResumableError } from '@resumable/protocol';
import { REMEMBERED_RUN_THREADS } from '../../defaults.js';
import type { RedisClient } from './connection.js';
import type { RedisKeys } from './keys.js';

type Call = <T>(what: string, op: (client: RedisClient) => Promise<T>) => Promise<T>;

/**
 * Which thread a run belongs to. A run's keys carry its thread's hash tag, and most
 * requests name the run alone (`GET /runs/{id}`), so each run has one key of its own,
 * `runthread:<R>` → thread id, written before the run is created (a run is never stored
 * where its id cannot find it), and remembered here: the mapping never changes, so the
 * producing instance and every reader of a run look it up once.
 */
export class RunIndex {
  /** runId → threadId, least recently used first. */
  private readonly remembered = new Map<string, string>();

  constructor(
    private readonly keys: RedisKeys,
    private readonly call: Call,
  ) {}

  /** The run's thread, or null for no such run. */
  async threadOf(runId: string): Promise<string | null> {
    const known = this.remembered.get(runId);
    if (known !== undefined) {
      this.remember(runId, known);
      return known;
    }
    const threadId = await this.call('runThread', (c) => c.get(this.keys.runThread(runId)));
    if (threadId !== null) this.remember(runId, threadId);
    return threadId;
  }

  /** The run's thread if this instance knows it already (no Redis call). */
  known(runId: string): string | undefined {
    return this.remembered.get(runId);
  }

  /**
   * Claims `runId` for `threadId` before the run is created. Resolves the thread the id
   * belongs to: `threadId` (claimed now, or by an earlier attempt of the same POST), or
   * another thread that has it already.
   */
  async claim(runId: string, threadId: string): Promise<string> {
    const key = this.keys.runThread(runId);
    const set = await this.call('claimRunId', (c) => c.set(key, threadId, 'NX'));
    const owner = set === 'OK' ? threadId : await this.call('claimRunId', (c) => c.get(key));
    if (owner === null) {
      // Deleted between the two calls (its thread was deleted): the id is free again.
      throw new ResumableError('store_unavailable', `run id ${runId} changed hands; retry`);
    }
    this.remember(runId, owner);
    return owner;
  }

  /** Forgets the runs of a deleted thread, here and in Redis. */
  async forget(runIds: readonly string[]): Promise<void> {
    for (const runId of runIds) this.remembered.delete(runId);
    // One key per run, each in its own slot: deleted one by one (in parallel, in chunks).
    for (let i = 0; i < runIds.length; i += 100) {
      const chunk = runIds.slice(i, i + 100);
      await Promise.all(
        chunk.map((id) => this.call('forgetRun', (c) => c.del(this.keys.runThread(id)))),
      );
    }
  }

  /** A run id whose run is gone (its thread deleted elsewhere): looked up again next time. */
  drop(runId: string): void {
    this.remembered.delete(runId);
  }

  remember(runId: string, threadId: string): void {
    this.remembered.delete(runId);
    this.remembered.set(runId, threadId);
    if (this.remembered.size > REMEMBERED_RUN_THREADS) {
      const oldest = this.remembered.keys().next().value;
      if (oldest !== undefined) this.remembered.delete(oldest);
    }
  }
}
