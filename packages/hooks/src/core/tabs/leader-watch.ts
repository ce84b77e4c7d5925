import { IDLE_THREAD_MAX_MS, LEADER_GRACE_MS, LEADER_SILENT_MS } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import type { BackoffOptions } from '../retry/backoff.js';
import { Retrier, snapshotReadAction } from '../retry/retrier.js';
import type { TabShareMessage } from './tab-messages.js';

/**
 * A follower's watch over its leader, on the one thing no tab can fake: the server's own
 * offset of what it follows. A heartbeat can be made up and a hung page keeps its Web Lock,
 * so a follower whose point stood still for `staleMs` asks the server, and a leader the
 * server shows behind what it delivered gets `LEADER_GRACE_MS`, then is taken over (steal);
 * silence alone only after `LEADER_SILENT_MS`. The rules and why (made-up claims, a new
 * leader's due, throttled hidden tabs, the bounds on reads): README, "Architecture", the
 * leader watch.
 *
 * ```
 *   watching ── still for staleMs ──► checking ── server ahead ──► behind ── grace ──► takeOver
 *      ▲            (spaced)              │ not ahead, failed              │
 *      └──────────────────────────────────┘                                │
 *   any ── the point moved, another run, none ──► watching ◄───────────────┘ (point moved)
 *   checking, behind ── a new leader (once until progress) ──► watching
 *   checking ── 401, 403, 404 ──► refused (until the point changes)
 *   any ── visible, silent for LEADER_SILENT_MS ──► takeOver
 *   behind ── grace, but this tab was taken over on this run and the point moved since ──► watching
 * ```
 */
export interface WatchedPoint {
  /** A live run's (`GET /runs/{id}`), or the thread stream's (`GET /threads/{id}`). */
  kind: 'run' | 'thread';
  id: string;
  token: string | null;
  offset: number;
}

/** What another tab's message says was delivered: point `kind`/`id` up to `offset`. */
export interface Delivered {
  kind: 'run' | 'thread';
  id: string;
  offset: number;
}

export interface LeaderWatchParts {
  env: Pick<ResumableEnvironment, 'now' | 'random'>;
  backoff?: BackoffOptions | undefined;
  /** This tab's point had no new event this long: the server is asked. */
  staleMs: number;
  /** The live run (else the thread) this tab follows through the leader, and its offset; null: none. */
  point(): WatchedPoint | null;
  /** The user looks at this tab (the silence bound applies only then). */
  visible(): boolean;
  /** The server's last offset of the point's run or thread (this tab's own read). */
  serverOffset(point: WatchedPoint): Promise<number>;
  /** The leader let this tab fall behind the server: take its lock. */
  takeOver(): void;
}

export type WatchPhase =
  | { name: 'watching' }
  /** Reading the server's offset of `point` (raised; this tab's own: `own`) since `at`. */
  | { name: 'checking'; token: object; point: WatchedPoint; own: number; at: number }
  /** The server was at `server`, past what the leader delivered, at `since`. */
  | { name: 'behind'; server: number; since: number }
  | { name: 'refused' };

export interface WatchState {
  phase: WatchPhase;
  /** This tab's own point as last seen, and since when it stood still. */
  last: WatchedPoint | null;
  movedAt: number;
  /** Checks in a row that found nothing new, or failed. */
  idle: number;
  notBefore: number;
  /** When another tab's message was last heard. */
  heardAt: number;
  /** The tab whose `lead` was heard last. */
  leader: string | null;
  /** The highest offset delivered of the watched run or thread (others' are not kept). */
  delivered: Delivered | null;
  /**
   * A check found a claim past the server's answer (made up): claims are not taken while
   * this tab's own point is still this one.
   */
  doubt: Delivered | null;
  /** A new leader held a takeover off since the watch last saw progress. */
  handedOver: boolean;
  /** When this tab's own point last moved. */
  progressAt: number;
  /** The lock was taken from this tab (then its leader) at this time, on run `stolenRun`. */
  stolenAt: number | null;
  stolenRun: string | null;
}

export type WatchEvent =
  /** The heartbeat's tick (this tab follows): its point now, and whether it is seen. */
  | { type: 'tick'; point: WatchedPoint | null; visible: boolean }
  /** Another tab's message: from `tab`, a `lead` or not, and what it says was delivered. */
  | { type: 'heard'; tab: string; lead: boolean; delivered: Delivered | null }
  /** Check `token`'s answer: the server's offset, or a failure (`refused`: the server's no). */
  | {
      type: 'answered';
      token: object;
      server: number | null;
      refused: boolean;
      retryAfter: number | undefined;
    }
  /** Following again (or no more): whatever was seen before says nothing now. `stolen`: this
   * tab led, and another took the lock from it. */
  | { type: 'reset'; point: WatchedPoint | null; stolen: boolean };

export interface WatchContext {
  now: number;
  staleMs: number;
  /** The retry policy's delay before check `attempt` (`Retry-After` in seconds, if given). */
  delay(attempt: number, retryAfter: number | undefined): number;
}

export type WatchEffect =
  | { type: 'check'; point: WatchedPoint; token: object }
  | { type: 'takeOver' };

export function initialWatch(
  now: number,
  point: WatchedPoint | null = null,
  stolen = false,
): WatchState {
  return {
    phase: { name: 'watching' },
    last: point,
    movedAt: now,
    idle: 0,
    notBefore: 0,
    heardAt: now,
    leader: null,
    delivered: null,
    doubt: null,
    handedOver: false,
    progressAt: now,
    stolenAt: stolen ? now : null,
    stolenRun: stolen && point?.kind === 'run' ? point.id : null,
  };
}

/** The one transition function. */
export function watchTransition(
  s: WatchState,
  e: WatchEvent,
  c: WatchContext,
): { state: WatchState; effect: WatchEffect | null } {
  const { now } = c;
  const watching = { name: 'watching' } as const;
  switch (e.type) {
    case 'reset':
      return { state: initialWatch(now, e.point, e.stolen), effect: null };
    case 'heard': {
      const d = e.delivered;
      const held = s.delivered;
      const ours = d !== null && d.kind === s.last?.kind && d.id === s.last.id;
      const delivered = ours && !(samePlace(held, d) && held.offset >= d.offset) ? d : held;
      const state = { ...s, heardAt: now, delivered, leader: e.lead ? e.tab : s.leader };
      // A handover (a `lead` from another tab than the last: a follower took the lock): the
      // new leader gets its own staleMs, once until progress. A takeover it was about to
      // suffer is off; a check in flight is answered, but not held against it.
      // A follower that never heard the hung leader (opened after it hung) takes the first
      // lead it hears while it suspects one as the new leader's.
      const suspects = s.phase.name === 'checking' || s.phase.name === 'behind';
      const handover =
        e.lead && (s.leader !== null || suspects) && s.leader !== e.tab && !s.handedOver;
      if (!handover || s.phase.name === 'refused') return { state, effect: null };
      const phase = s.phase.name === 'behind' ? watching : s.phase;
      return { state: { ...state, phase, movedAt: now, handedOver: true }, effect: null };
    }
    case 'tick': {
      const p = e.point;
      if (e.visible && now - s.heardAt > Math.max(LEADER_SILENT_MS, c.staleMs)) {
        const state = { ...s, phase: watching, last: p, movedAt: now, notBefore: 0, heardAt: now };
        return { state, effect: { type: 'takeOver' } };
      }
      if (!samePoint(p, s.last)) {
        const moved = { movedAt: now, progressAt: now, notBefore: 0, idle: 0 };
        const state = { ...s, ...moved, phase: watching, last: p };
        return { state: { ...state, handedOver: false }, effect: null };
      }
      const phase = s.phase;
      if (p === null || phase.name === 'checking' || phase.name === 'refused') {
        return { state: s, effect: null };
      }
      // What the leader delivered, unless a check found its claims made up (until p moves).
      const claimed = samePoint(p, s.doubt) ? p : raised(p, s.delivered);
      if (phase.name === 'behind') {
        // It delivered what the server had at the read: not behind after all.
        if (claimed.offset >= phase.server) {
          return { state: { ...s, phase: watching, movedAt: now }, effect: null };
        }
        if (now - phase.since < LEADER_GRACE_MS) return { state: s, effect: null };
        // Taken over on this run already, and the one who took it delivers, only late: a
        // buffering proxy all tabs share, not a hung leader (taking it back would trade the
        // lock for the run's length). Asked again later; silent past LEADER_SILENT_MS, stolen.
        if (slowNotHung(s, p, now)) {
          return { state: { ...s, phase: watching, movedAt: now }, effect: null };
        }
        const state = { ...s, phase: watching, movedAt: now, notBefore: 0 };
        return { state, effect: { type: 'takeOver' } };
      }
      if (now - s.movedAt < c.staleMs || now < s.notBefore) return { state: s, effect: null };
      const token = {};
      return {
        state: { ...s, phase: { name: 'checking', token, point: claimed, own: p.offset, at: now } },
        effect: { type: 'check', point: claimed, token },
      };
    }
    case 'answered': {
      const phase = s.phase;
      if (phase.name !== 'checking' || phase.token !== e.token) return { state: s, effect: null };
      // What the leader delivered came from this server before the read: a claim past its
      // answer was made up, and holds nothing off (nor do claims until this tab's point moves).
      const madeUp = e.server !== null && phase.point.offset > e.server;
      const doubt = madeUp ? { ...phase.point, offset: phase.own } : s.doubt;
      const delivered = madeUp ? null : s.delivered;
      const credited = madeUp ? phase.own : phase.point.offset;
      if (e.server !== null && e.server > credited) {
        const next = { ...s, doubt, delivered };
        // A new leader since the read began (`movedAt` moves in a check only then): its due.
        if (s.movedAt > phase.at) return { state: { ...next, phase: watching }, effect: null };
        const behind = { name: 'behind', server: e.server, since: now } as const;
        return { state: { ...next, phase: behind }, effect: null };
      }
      const idle = s.idle + 1;
      // A quiet thread may stay quiet all day: its checks space out (doubling, up to 5 min)
      // instead of costing every visible follower a read per staleMs for as long as it is open.
      const wait =
        phase.point.kind === 'thread'
          ? Math.min(c.staleMs * 2 ** (idle - 1), IDLE_THREAD_MAX_MS)
          : c.staleMs;
      const state: WatchState = {
        ...s,
        doubt,
        delivered,
        idle,
        notBefore: now + wait + c.delay(idle, e.retryAfter),
        phase: e.refused ? { name: 'refused' } : watching,
        // The server not past the leader: progress (a later new leader holds off again).
        handedOver: e.server === null && s.handedOver,
      };
      return { state, effect: null };
    }
  }
}

/** The imperative shell: the heartbeat's ticks in, the reads and the takeover out. */
/** This tab lost the lock on `p`'s run, and its new leader has delivered within the silence bound. */
function slowNotHung(s: WatchState, p: WatchedPoint, now: number): boolean {
  if (s.stolenAt === null || p.kind !== 'run' || p.id !== s.stolenRun) return false;
  return s.progressAt > s.stolenAt && now - s.progressAt < LEADER_SILENT_MS;
}

export class LeaderWatch {
  private state: WatchState;

  /** The one policy's delays space the checks (a 429/503's `Retry-After`, clamped). */
  private readonly retries: Retrier;

  constructor(private readonly parts: LeaderWatchParts) {
    this.state = initialWatch(parts.env.now());
    this.retries = new Retrier(parts.env, { backoff: parts.backoff });
  }

  get phase(): WatchPhase {
    return this.state.phase;
  }

  /** Called on every heartbeat tick while this tab follows. */
  tick(): void {
    this.dispatch({ type: 'tick', point: this.parts.point(), visible: this.parts.visible() });
  }

  /** Another tab's message (`lead`: its heartbeat), with what it says it delivered. */
  heard(tab: string, lead: boolean, delivered: Delivered | null): void {
    this.dispatch({ type: 'heard', tab, lead, delivered });
  }

  /** Following again (or no more): whatever was seen before says nothing now. `stolen`: this
   * tab led until another took the lock. */
  reset(stolen = false): void {
    this.dispatch({ type: 'reset', point: this.parts.point(), stolen });
  }

  private dispatch(event: WatchEvent): void {
    const { env, staleMs } = this.parts;
    const delay = (attempt: number, retryAfter: number | undefined) =>
      this.retries.delay(attempt, retryAfter);
    const { state, effect } = watchTransition(this.state, event, {
      now: env.now(),
      staleMs,
      delay,
    });
    this.state = state;
    if (effect?.type === 'takeOver') this.parts.takeOver();
    else if (effect?.type === 'check') this.check(effect.point, effect.token);
  }

  private check(point: WatchedPoint, token: object): void {
    const answered = (server: number | null, refused: boolean, retryAfter?: number) =>
      this.dispatch({ type: 'answered', token, server, refused, retryAfter });
    this.parts.serverOffset(point).then(
      (server) => answered(server, false),
      (error) => {
        const typed = toResumable(error);
        const action = snapshotReadAction(typed);
        answered(null, action === 'stop' || action === 'forget', typed.retryAfter);
      },
    );
  }
}

/** What a tab message says its sender delivered (a `lead`'s run offset, a batch's last). */
export function deliveredBy(m: TabShareMessage): Delivered | null {
  if (m.t === 'lead') return m.run && { kind: 'run', id: m.run.runId, offset: m.offset };
  if (m.t !== 'batch' && m.t !== 'thread') return null;
  const offset = (m.envelopes[m.envelopes.length - 1] as { offset: number }).offset;
  return m.t === 'batch'
    ? { kind: 'run', id: m.runId, offset }
    : { kind: 'thread', id: m.threadId, offset };
}

/** `p` with its offset raised to what the leader delivered of the same run or thread. */
function raised(p: WatchedPoint, d: Delivered | null): WatchedPoint {
  return samePlace(d, p) && d.offset > p.offset ? { ...p, offset: d.offset } : p;
}

/** The same run, or the same thread. */
function samePlace(a: Delivered | null, b: Delivered): a is Delivered {
  return a !== null && a.kind === b.kind && a.id === b.id;
}

function samePoint(a: Delivered | null, b: Delivered | null): boolean {
  if (a === null || b === null) return a === b;
  return samePlace(a, b) && a.offset === b.offset;
}
