import type { RunStatus } from '@resumable/protocol';
import type { ConnectionPhase } from './connection.js';

/**
 * Where a run session is: one name at a time, moved only by `transition`. This replaces
 * the flags the session used to combine (looping, stopped, cancel confirmed…): every
 * question "may the loop run now? is a cancel owed? is this a resume?" is a question
 * about the phase.
 *
 * ```
 *            follow                attempt            open
 *   idle ───────────► connecting ◄─────────── waiting ◄──── (drop)
 *    ▲                  │    ▲ open                ▲          │
 *    │ park / clear     │    └──── streaming ──────┴── drop ──┘
 *    │                  ▼ offline      │ offline
 *    │               offline ◄─────────┘        (attempt from offline on `online`)
 *    │
 *   any ── stop ──► stopping ── cancelTaken ──► draining ── terminal ──► ended
 *   any ── terminal ──► ended            any ── fail ──► failed ── attempt (retry) ──► connecting
 * ```
 */
export type SessionPhase =
  /** No run followed, or nobody holds the session. */
  | 'idle'
  /** An attempt is opening the event stream (or loading a snapshot). */
  | 'connecting'
  /** The stream answered and is being read. */
  | 'streaming'
  /** A retry's delay (backoff, or the server's `Retry-After`). */
  | 'waiting'
  /** `navigator.onLine` is false: parked until `online`. */
  | 'offline'
  /** The user stopped the run: the cancel is being sent (and retried) before anything else. */
  | 'stopping'
  /** The server took the cancel: its log is read to the cancelled end. */
  | 'draining'
  /** The run is over (finished, cancelled, or failed on the server). */
  | 'ended'
  /** Stopped by an error only the user (`retry()`) or a new run can change. */
  | 'failed';

/** What moves a run session's machine (`ObservedPhase.event`). */
export type SessionEvent =
  /** A run to follow (started, attached, restored from a record). */
  | 'follow'
  /** The loop opens the stream. */
  | 'attempt'
  /** The stream answered 200. */
  | 'open'
  /** An attempt ended without the run's end: wait, then try again. */
  | 'drop'
  /** The browser went offline: the attempt stops until `online`. */
  | 'offline'
  /** The run reached a terminal event (or a snapshot says it is over). */
  | 'terminal'
  /** The user stopped the run. */
  | 'stop'
  /** The server accepted the cancel. */
  | 'cancelTaken'
  /** An error no retry mends (or the retry policy gave up): the session stops on it. */
  | 'fail'
  /** The last holder left: stop the network work, keep the run. */
  | 'park'
  /** The run is forgotten (a new conversation). */
  | 'clear';

const STOPPED: readonly SessionPhase[] = ['stopping', 'draining'];

/** The one transition function: the phase after `event` in `phase`. */
export function transition(phase: SessionPhase, event: SessionEvent): SessionPhase {
  switch (event) {
    case 'clear':
      return 'idle';
    case 'follow':
      return 'connecting';
    case 'terminal':
      return 'ended';
    case 'stop':
      return phase === 'ended' || phase === 'draining' ? phase : 'stopping';
    case 'cancelTaken':
      return phase === 'stopping' ? 'draining' : phase;
    case 'fail':
      return phase === 'ended' ? phase : 'failed';
    case 'park':
      return phase === 'ended' || phase === 'failed' || STOPPED.includes(phase) ? phase : 'idle';
  }
  // attempt, open, drop, offline: the connection's own moves. A stopped run does not
  // follow the stream until the server took the cancel, then it does so as `draining`.
  if (phase === 'ended' || phase === 'stopping' || phase === 'draining') return phase;
  switch (event) {
    case 'attempt':
      return 'connecting';
    case 'open':
      return 'streaming';
    case 'drop':
      return 'waiting';
    case 'offline':
      return 'offline';
  }
}

/** True while the user's stop is still owed to the server or being read to its end. */
export function isStopped(phase: SessionPhase): boolean {
  return STOPPED.includes(phase);
}

/**
 * What the connection status shows for a phase. `resuming`: the attempt follows a drop or
 * a reload (shown as `reconnecting`, not `connecting`).
 */
export function connectionPhaseOf(
  phase: SessionPhase,
  status: RunStatus,
  resuming: boolean,
): ConnectionPhase {
  switch (phase) {
    case 'idle':
      return 'idle';
    case 'connecting':
      return resuming ? 'reconnecting' : 'connecting';
    case 'streaming':
      return 'streaming';
    case 'waiting':
      return 'reconnecting';
    case 'offline':
      return 'offline';
    case 'stopping':
    case 'draining':
      return 'cancelled';
    case 'failed':
      return 'error';
    case 'ended':
      return status === 'finished' ? 'finished' : status === 'error' ? 'error' : 'cancelled';
  }
}
