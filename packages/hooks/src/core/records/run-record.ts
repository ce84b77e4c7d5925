import type { RunSnapshot, RunState, RunStatus } from '@resumable/protocol';
import {
  isPlainObject,
  parseSnapshot,
  ResumableError,
  stateFromSnapshot,
} from '@resumable/protocol';

/**
 * What survives a reload: the run to resume, the capability to read it, the resume point
 * and the folded state *at that resume point* — written together, so a reload never
 * resumes from an offset whose text it does not have (or has twice).
 */
export interface RunResumeRecord {
  v: 1;
  key: string;
  runId: string;
  threadId: string;
  token: string | null;
  /** The resume point; always `snapshot.lastOffset`. */
  offset: number;
  /**
   * The `lastOffset` of the server snapshot (`GET /runs/:id`) this state was built on; 0
   * (or absent, in records written before it existed) when it was folded from the log's
   * start. Only a snapshot replacement (409/410/204) changes it, and an ordinary write
   * carrying another base comes from a state that was replaced since (a second tab still
   * on it): it is refused.
   */
  base?: number;
  snapshot: RunSnapshot;
  status: RunStatus;
  updatedAt: number;
  /** The user stopped this run: never reconnect to it, only finish the cancel. */
  stopped?: true;
}

export const RECORD_VERSION = 1;

/**
 * Reads and checks a session's record: the record, or null, and the problem met (a read
 * that failed: `storage_unavailable`; a record that does not parse: `corrupt_record`).
 */
export async function loadRecord(
  storage: { get(key: string): Promise<unknown> },
  key: string,
): Promise<{ record: RunResumeRecord | null; problem: ResumableError | null }> {
  let raw: unknown;
  try {
    raw = await storage.get(runRecordKey(key));
  } catch (cause) {
    const problem = new ResumableError('storage_unavailable', 'could not read the run record', {
      cause,
    });
    return { record: null, problem };
  }
  const parsed = parseRecord(raw, key);
  return parsed instanceof ResumableError
    ? { record: null, problem: parsed }
    : { record: parsed, problem: null };
}

/** Storage key of a session's record. */
export const runRecordKey = (key: string) => `run:${key}`;

const STATUSES: readonly string[] = ['idle', 'running', 'finished', 'cancelled', 'error'];

/**
 * Checks a value read from storage. Anything that is not a version-1 record whose parts
 * agree with each other is a `corrupt_record` error (returned, never thrown): storage is
 * input like any other — another version of this kit, an extension, a half-written value.
 */
export function parseRecord(value: unknown, key: string): RunResumeRecord | ResumableError | null {
  if (value === undefined || value === null) return null;
  const bad = (why: string) =>
    new ResumableError('corrupt_record', `persisted record "${key}" discarded: ${why}`);
  if (!isPlainObject(value)) return bad('not an object');
  const r = value as Partial<RunResumeRecord> & { v?: unknown };
  if (r.v !== RECORD_VERSION) return bad(`unknown version ${JSON.stringify(r.v)}`);
  // A record copied under another slot's key (an extension, a bug) is not this slot's run.
  if (r.key !== key) return bad(`stored for slot ${JSON.stringify(r.key)}`);
  if (typeof r.runId !== 'string' || r.runId === '') return bad('no runId');
  if (typeof r.threadId !== 'string') return bad('no threadId');
  if (r.token !== null && typeof r.token !== 'string') return bad('bad token');
  if (typeof r.offset !== 'number' || !Number.isSafeInteger(r.offset) || r.offset < 0)
    return bad('bad offset');
  if (
    r.base !== undefined &&
    (typeof r.base !== 'number' || !Number.isSafeInteger(r.base) || r.base < 0 || r.base > r.offset)
  )
    return bad('bad base');
  if (typeof r.status !== 'string' || !STATUSES.includes(r.status)) return bad('bad status');
  const s = parseSnapshot(r.snapshot, r.runId);
  if (s instanceof ResumableError) return bad(s.message);
  if (s.lastOffset !== r.offset) return bad('snapshot and offset disagree');
  if (!s.messages.every((m) => typeof m === 'object' && m !== null && typeof m.id === 'string'))
    return bad('bad message in snapshot');
  return r as RunResumeRecord;
}

/** The folded run a record restores (the engine's and the first paint's, the same). */
export function runStateOfRecord(record: RunResumeRecord): RunState {
  return stateFromSnapshot({ ...record.snapshot, lastOffset: record.offset });
}

/** What a session's record read gives: the record, or null, and the problem met. */
export type RecordRead = Awaited<ReturnType<typeof loadRecord>>;
