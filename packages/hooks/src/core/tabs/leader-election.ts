import type { TabLocks } from '../base/env.js';
import type { StreamRole } from '../run/shared-stream.js';

/**
 * Which tab holds a conversation's network streams: one leader per (endpoint, key) among
 * the tabs of an origin, elected with the Web Locks API. The lock is the truth — the
 * browser releases it when its tab closes, crashes or navigates — so a queued follower is
 * granted it within milliseconds. A tab that freezes (or goes into the back-forward cache)
 * gives it up itself; a leader that hangs is stolen from when the server shows it behind
 * (`leader-watch.ts`), or after `LEADER_SILENT_MS` of silence.
 *
 * ```
 *           start                     busy
 *   solo ◄── unsupported   electing ─────────► follower ◄──┐ lost (stolen)
 *              start ──►     │ granted           │ granted │
 *                            ▼                   ▼         │
 *                          leader ◄──────────────┘ ────────┘
 *   follower ── stale ──► stealing ── granted ──► leader
 *   any ── freeze ──► frozen ── resume ──► electing          any ── close ──► closed
 * ```
 */
export type LeaderPhase =
  /** Not sharing (no Web Locks or no BroadcastChannel, or opted out): own streams. */
  | 'solo'
  /** Asking for the lock without waiting (`ifAvailable`). */
  | 'electing'
  /** The leader went silent: taking the lock from it (`steal`). */
  | 'stealing'
  /** Holds the lock: the streams, the batches to the others, the only storage writer. */
  | 'leader'
  /** Queued for the lock; takes the leader's batches meanwhile. */
  | 'follower'
  /** The page froze or went into the back-forward cache: no lock, no request. */
  | 'frozen'
  | 'closed';

export type LeaderEvent =
  | 'start'
  | 'unsupported'
  | 'granted'
  /** `ifAvailable` found the lock taken. */
  | 'busy'
  /** The lock was stolen from this tab (it had hung, or was thought to). */
  | 'lost'
  /** The leader is behind the server, or silent too long (`leader-watch.ts` decides). */
  | 'stale'
  | 'freeze'
  | 'resume'
  | 'close';

/** The one transition function. */
export function leaderTransition(phase: LeaderPhase, event: LeaderEvent): LeaderPhase {
  if (phase === 'closed') return phase;
  switch (event) {
    case 'close':
      return 'closed';
    case 'unsupported':
      return 'solo';
    case 'start':
      return phase === 'solo' || phase === 'frozen' ? 'electing' : phase;
    case 'freeze':
      return phase === 'solo' ? phase : 'frozen';
    case 'resume':
      return phase === 'frozen' ? 'electing' : phase;
    case 'granted':
      return phase === 'electing' || phase === 'follower' || phase === 'stealing'
        ? 'leader'
        : phase;
    case 'busy':
      return phase === 'electing' ? 'follower' : phase;
    case 'lost':
      return phase === 'leader' ? 'follower' : phase;
    case 'stale':
      return phase === 'follower' ? 'stealing' : phase;
  }
}

/** What a phase means for the streams of the tab's sessions. */
export function roleOf(phase: LeaderPhase): StreamRole {
  switch (phase) {
    case 'solo':
    case 'closed':
      return 'solo';
    case 'leader':
      return 'leader';
    case 'follower':
      return 'follower';
    case 'electing':
    case 'stealing':
    case 'frozen':
      return 'pending';
  }
}

/**
 * The imperative shell around `leaderTransition`: lock requests and releases. Every
 * callback carries the request's generation, so a late grant or rejection of a request
 * this tab already gave up never moves the phase.
 */
export class LeaderElection {
  phase: LeaderPhase = 'solo';
  private generation = 0;
  private release: (() => void) | null = null;
  private abort: AbortController | null = null;

  constructor(
    private readonly locks: TabLocks | null,
    private readonly name: string,
    private readonly onPhase: (phase: LeaderPhase, previous: LeaderPhase) => void,
  ) {}

  start(): void {
    this.dispatch(this.locks ? 'start' : 'unsupported');
  }

  dispatch(event: LeaderEvent): void {
    const previous = this.phase;
    const next = leaderTransition(previous, event);
    if (next === previous) return;
    this.phase = next;
    // Told before the effect: a lock answered at once dispatches again from inside it.
    this.onPhase(next, previous);
    // The effect of entering a phase: the lock request it stands for (each drops the last).
    if (next === 'electing') this.request({ ifAvailable: true });
    else if (next === 'stealing') this.request({ steal: true });
    else if (next === 'follower') this.request({});
    else if (next !== 'leader') this.letGo();
  }

  /** Drops the held lock and any queued request. */
  private letGo(): void {
    this.generation++;
    this.release?.();
    this.release = null;
    this.abort?.abort();
    this.abort = null;
  }

  private request(options: { ifAvailable?: boolean; steal?: boolean }): void {
    const locks = this.locks;
    if (!locks) return;
    this.letGo();
    const generation = this.generation;
    const abort = new AbortController();
    this.abort = abort;
    // `signal` may not be combined with `ifAvailable` or `steal` (the spec throws).
    const queued = options.ifAvailable || options.steal ? options : { signal: abort.signal };
    locks
      .request(this.name, queued, (lock) => {
        if (generation !== this.generation) return undefined;
        if (lock === null) {
          this.dispatch('busy');
          return undefined;
        }
        // Held until this promise settles: until `letGo()`, or the tab's death.
        const held = new Promise<void>((resolve) => {
          this.release = resolve;
        });
        this.dispatch('granted');
        return held;
      })
      .catch(() => {
        // Stolen (AbortError while held), or a queued request given up by `letGo()`.
        if (generation === this.generation) this.dispatch('lost');
      });
  }
}
