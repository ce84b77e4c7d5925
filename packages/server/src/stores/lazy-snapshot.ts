import type { RunSnapshot } from '@resumable/protocol';
import type { RunRecord } from './types.js';

/**
 * Gives `record` a `snapshot` that is made on first read, then kept. A finished run's
 * snapshot (every message of its turn) never changes, and most reads of a run record look
 * only at its status and offsets (each event-stream request, each POST retry, each thread
 * listing): those never pay for parsing or copying it.
 */
export function withLazySnapshot(
  record: Omit<RunRecord, 'snapshot'>,
  load: () => RunSnapshot,
): RunRecord {
  let loaded = false;
  let snapshot: RunSnapshot | null = null;
  return Object.defineProperty(record, 'snapshot', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!loaded) {
        snapshot = load();
        loaded = true;
      }
      return snapshot;
    },
    set: (value: RunSnapshot | null) => {
      snapshot = value;
      loaded = true;
    },
  }) as RunRecord;
}
