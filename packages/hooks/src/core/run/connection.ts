import type { ErrorCode, RunState } from '@resumable/protocol';
import { ResumableError, RUN_ERROR_CODES } from '@resumable/protocol';

// What a run session says about its connection, apart from its store (and zustand): the
// first paint shows it before the engine loads.

/** Where a session's connection is. `offline` while `navigator.onLine` is false. */
export type ConnectionPhase =
  | 'idle'
  | 'connecting'
  | 'streaming'
  | 'reconnecting'
  | 'offline'
  | 'finished'
  | 'cancelled'
  | 'error';

/** Facts about the connection, for status lines and inspectors. */
export interface ConnectionInfo {
  /** Where the connection is now. */
  phase: ConnectionPhase;
  /** Reconnect attempts since the last stable connection (0 when healthy). */
  attempt: number;
  /** When the next reconnect attempt is scheduled (epoch ms), or null. */
  nextRetryAt: number | null;
  /** The last transport error (network, stall, gap, HTTP error), or null. */
  lastError: ResumableError | null;
  /** Events applied from the first read after the last (re)connect: "caught up n events". */
  caughtUp: number;
  /** How many times this session resumed after a drop or reload. */
  resumes: number;
  /**
   * The resume point (highest offset applied). Read live: a batch that only moves it keeps
   * the same `connection` object, so status components do not re-render per batch; select
   * `s.connection.offset` itself to re-render on it.
   */
  offset: number;
  /** `memory` when IndexedDB is not available and records do not survive a reload. */
  persistence: 'indexeddb' | 'memory';
  /**
   * True in a follower tab: another tab of this origin holds the conversation's streams and
   * passes their events on ("live via another tab"). Absent or false: this tab's own.
   */
  viaTab?: boolean;
}

export function initialConnection(persistence: ConnectionInfo['persistence']): ConnectionInfo {
  return {
    phase: 'idle',
    attempt: 0,
    nextRetryAt: null,
    lastError: null,
    caughtUp: 0,
    resumes: 0,
    offset: 0,
    persistence,
  };
}

/** A run that ended in RUN_ERROR, as the typed error the UI shows. */
export function runErrorOf(run: RunState): ResumableError | null {
  if (run.status !== 'error' || run.error === null) return null;
  const code = run.error.code;
  return new ResumableError(
    (RUN_ERROR_CODES as readonly string[]).includes(code ?? '')
      ? (code as ErrorCode)
      : 'agent_failed',
    run.error.message,
  );
}

/**
 * `facts` as the object the store publishes: `offset` is a getter on the store's current
 * resume point instead of a copied value. The offset moves with every batch while nothing
 * a status line shows does; as a plain field it made every batch a new `connection` and
 * re-rendered every component selecting it. A new object is made only when another fact
 * changes; to re-render on the offset itself, select it (`s => s.connection.offset`).
 */
export function liveConnection(facts: ConnectionInfo, offset: () => number): ConnectionInfo {
  const connection = { ...facts };
  Object.defineProperty(connection, 'offset', { get: offset, enumerable: true });
  return connection;
}
