import type { AGUIEvent, RunState } from '@resumable/protocol';
import { applyEnvelopes, EventType, snapshotOf } from '@resumable/protocol';
import { putAnswer } from '../branches/history.js';
import { END_RETRIES_MS } from '../defaults.js';
import { sleep } from '../sleep.js';
import { historyMessage } from '../stores/stored-messages.js';
import type { EventStore, RunRecord } from '../stores/types.js';
import { AppendConflictError } from '../stores/types.js';
import type { Hub } from '../streams/subscription.js';
import { foldStoredRun, lostEvent, type PendingEvent, pendingEvent, statusOf } from './events.js';

export interface RecoveryOptions {
  store: EventStore;
  log: (message: string) => void;
  /** Aborted at shutdown: ends the waits of background retries. */
  shutdown: AbortSignal;
  isActive: (runId: string) => boolean;
  hub: (runId: string) => Hub | undefined;
  /** A run this recovery ended (its terminal event is stored), with its final state. */
  onEnded?: (state: RunState) => void;
}

/**
 * Ends runs nobody here produces: orphans of a dead producer, runs whose store failed
 * them, and cancels of runs with no producer. Every end goes through one conditional
 * append after the stored log, so only one writer ever ends a run.
 */
export class Recovery {
  constructor(private readonly options: RecoveryOptions) {}

  /** Ends every orphaned run the store reports (`agent_lost`). */
  async endOrphans(): Promise<void> {
    const { store, log, isActive } = this.options;
    let orphans: RunRecord[];
    try {
      orphans = await store.findOrphanedRuns();
    } catch (error) {
      log(`orphan sweep failed: ${String(error)}`);
      return;
    }
    for (const record of orphans) {
      if (isActive(record.runId)) continue;
      await this.endStored(
        record,
        lostEvent('the server running this run stopped before it finished'),
      ).catch((error) => log(`run ${record.runId}: ending the orphan failed: ${error}`));
    }
  }

  /**
   * Ends a run nobody here produces with `terminal` at `lastOffset + 1` (after a
   * `RUN_STARTED` when the log is empty); a conflict means someone else ended it.
   */
  async endStored(record: RunRecord, terminal: AGUIEvent): Promise<void> {
    const { store } = this.options;
    const state = await foldStoredRun(store, record);
    const events: PendingEvent[] = [];
    let offset = state.offset;
    if (offset === 0) {
      const started = {
        type: EventType.RUN_STARTED,
        threadId: record.threadId,
        runId: record.runId,
      };
      events.push(pendingEvent(++offset, started as AGUIEvent));
    }
    events.push(pendingEvent(++offset, terminal));
    const final = applyEnvelopes(state, events).state;
    const stored = events.map((e) => ({ offset: e.offset, json: e.json }));
    try {
      await store.append(record.runId, stored, {
        status: statusOf(terminal),
        endedAt: Date.now(),
        snapshot: snapshotOf(final),
      });
    } catch (error) {
      if (error instanceof AppendConflictError) return;
      throw error;
    }
    this.options.hub(record.runId)?.publish(stored, true);
    this.options.onEnded?.(final);
    await putAnswer(store, record, final.messages.map(historyMessage)).catch(() => {});
  }

  /** Appends `terminal` with backoff until it is stored, the run ended otherwise, or shutdown. */
  async endWithRetries(record: RunRecord, terminal: AGUIEvent): Promise<void> {
    const { log, shutdown } = this.options;
    for (let attempt = 0; !shutdown.aborted; attempt++) {
      try {
        await this.endStored(record, terminal);
        return;
      } catch (error) {
        const delay = END_RETRIES_MS[Math.min(attempt, END_RETRIES_MS.length - 1)]!;
        log(`run ${record.runId}: ending it failed, retrying in ${delay} ms: ${error}`);
        await sleep(delay, shutdown);
      }
    }
  }
}
