import type { RunState } from '@resumable/protocol';
import { isTerminalStatus, ResumableError, snapshotOf } from '@resumable/protocol';
import type { RunResumeRecord } from './run-record.js';
import { parseRecord, RECORD_VERSION } from './run-record.js';

// The engine's writes of a run record, apart from the record's read: the first paint reads
// records and writes none, and a module both use would be in its first chunk whole.

/** The record of `state` for slot `key` (its snapshot names the run and the thread). */
export function recordOf(
  key: string,
  state: RunState,
  ids: { runId: string; threadId: string; token: string | null },
  now: number,
  base = 0,
): RunResumeRecord {
  const snapshot = snapshotOf(state);
  snapshot.runId = ids.runId;
  snapshot.threadId = ids.threadId;
  return {
    v: RECORD_VERSION,
    key,
    runId: ids.runId,
    threadId: ids.threadId,
    token: ids.token,
    offset: state.offset,
    base,
    snapshot,
    status: state.status,
    updatedAt: now,
  };
}

/**
 * The monotonic write: never replace a record of the same run with one at a lower offset
 * (two tabs on one key both write; the one that got further wins), nor a terminal record
 * with a non-terminal one at the same offset, nor with one built on another snapshot
 * (`base`) than the stored one.
 *
 * `replace` is the exception: the session replaced its state with the server's snapshot
 * (409 `offset_ahead`, 410 `offset_expired`, 204 without a local end). That snapshot is the
 * truth even below the stored offset — after a 409 the stored record is *ahead* of the
 * server's log, and keeping it would show the wrong state (and 409 again) on every reload.
 */
export function mergeRecord(old: unknown, next: RunResumeRecord, replace = false): RunResumeRecord {
  const prev = parseRecord(old, next.key);
  if (prev === null || prev instanceof ResumableError || prev.runId !== next.runId) return next;
  // A stop in any tab sticks: no later write of the same run revives it.
  if (prev.stopped && !next.stopped) next = { ...next, stopped: true };
  if (replace) return next;
  if ((prev.base ?? 0) !== (next.base ?? 0)) return prev;
  if (prev.offset > next.offset) return prev;
  if (
    prev.offset === next.offset &&
    isTerminalStatus(prev.status) &&
    !isTerminalStatus(next.status)
  )
    return prev;
  return next;
}
