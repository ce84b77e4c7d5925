import { errorAction } from '@resumable/protocol';
import type { BackoffOptions } from './backoff.js';
import { retryDelay } from './backoff.js';
import type { ResumableEnvironment } from './env.js';
import { toResumable } from './typed-error.js';

/**
 * A follower's watch over its leader, on the one thing no tab can fake: the server's own
 * offset of the run it follows (or of the thread stream, while no run is live). The leader's heartbeat (`lead`) says a tab is alive, but any
 * tab can post one — a buggy tab, another version, an extension — and a leader whose page
 * hangs (its event loop blocked, the tab alive) keeps its Web Lock for good: the browser
 * releases a lock only when its holder's callback settles or its tab goes, and only `steal`
 * takes it from a live one. So a follower whose point has not moved for `staleMs` while its
 * run is live asks the server (`GET /runs/{id}`, its own read; `GET /threads/{id}` for the
 * thread, while the tab is visible); when the server is past it,
 * the leader gets `LEADER_GRACE_MS` to deliver, and is then taken over (`takeOver`: steal).
 *
 * Bounded: one read at a time, at most one per `staleMs`, spaced further by the retry
 * policy while checks find nothing new or fail; the server's own no (401, 403, 404) ends
 * the checks until the point changes. The read settles within the request timeout.
 *
 * ```
 *   watching ── still for staleMs ──► checking ── server ahead ──► behind ── grace ──► takeOver
 *      ▲            (spaced)              │ not ahead, failed              │
 *      └──────────────────────────────────┘                                │
 *   any ── the point moved, another run, none ──► watching ◄───────────────┘ (point moved)
 *   checking ── 401, 403, 404 ──► refused (until the point changes)
 * ```
 */
export interface WatchedPoint {
  /** A live run's (`GET /runs/{id}`), or the thread stream's (`GET /threads/{id}`). */
  kind: 'run' | 'thread';
  id: string;
  token: string | null;
  offset: number;
}

export interface LeaderWatchParts {
  env: Pick<ResumableEnvironment, 'now' | 'random'>;
  backoff?: BackoffOptions | undefined;
  /** This tab's point had no new event this long: the server is asked. */
  staleMs: number;
  /** The live run (else the thread) this tab follows through the leader, and its offset; null: none. */
  point(): WatchedPoint | null;
  /** The server's last offset of the point's run or thread (this tab's own read). */
  serverOffset(point: WatchedPoint): Promise<number>;
  /** The leader let this tab fall behind the server: take its lock. */
  takeOver(): void;
}

/** After a check found the server ahead, the leader has this long to deliver what it had. */
/** The longest wait between checks of a quiet thread (see `check`). */
export const IDLE_THREAD_MAX_MS = 300_000;

export const LEADER_GRACE_MS = 1000;

export type WatchPhase =
  | { name: 'watching' }
  | { name: 'checking'; token: object }
  /** The server was at `server`, past this tab's point, at `since`. */
  | { name: 'behind'; server: number; since: number }
  | { name: 'refused' };

export class LeaderWatch {
  phase: WatchPhase = { name: 'watching' };
  private last: WatchedPoint | null = null;
  private movedAt = 0;
  /** Checks in a row that found nothing new, or failed. */
  private idle = 0;
  private notBefore = 0;

  constructor(private readonly parts: LeaderWatchParts) {}

  /** Called on every heartbeat tick while this tab follows. */
  tick(): void {
    const { env, staleMs } = this.parts;
    const p = this.parts.point();
    const now = env.now();
    if (!samePoint(p, this.last)) {
      this.restart(p, now);
      return;
    }
    const phase = this.phase;
    if (p === null || phase.name === 'checking' || phase.name === 'refused') return;
    if (phase.name === 'behind') {
      if (now - phase.since < LEADER_GRACE_MS) return;
      this.restart(p, now);
      this.parts.takeOver();
      return;
    }
    if (now - this.movedAt >= staleMs && now >= this.notBefore) this.check(p);
  }

  /** Following again (or no more): whatever was seen before says nothing now. */
  reset(): void {
    this.restart(this.parts.point(), this.parts.env.now());
    this.idle = 0;
  }

  private restart(p: WatchedPoint | null, now: number): void {
    if (!samePoint(p, this.last)) this.idle = 0;
    this.last = p;
    this.movedAt = now;
    this.notBefore = 0;
    this.phase = { name: 'watching' };
  }

  private check(p: WatchedPoint): void {
    const token = {};
    this.phase = { name: 'checking', token };
    const settle = (server: number | null, refused: boolean, retryAfter?: number) => {
      if (this.phase.name !== 'checking' || this.phase.token !== token) return;
      const { env, backoff, staleMs } = this.parts;
      if (server !== null && server > p.offset) {
        this.phase = { name: 'behind', server, since: env.now() };
        return;
      }
      this.idle++;
      // A quiet thread may stay quiet all day: its checks space out (doubling, up to 5 min)
      // instead of costing every visible follower a read per staleMs for as long as it is open.
      const wait =
        p.kind === 'thread'
          ? Math.min(staleMs * 2 ** (this.idle - 1), IDLE_THREAD_MAX_MS)
          : staleMs;
      // A 429/503's Retry-After (clamped by the policy) replaces the backoff's part.
      this.notBefore = env.now() + wait + retryDelay(this.idle, env.random, backoff, retryAfter);
      this.phase = refused ? { name: 'refused' } : { name: 'watching' };
    };
    this.parts.serverOffset(p).then(
      (server) => settle(server, false),
      (error) => {
        const typed = toResumable(error);
        const action = errorAction(typed);
        settle(null, action === 'stop' || action === 'forget', typed.retryAfter);
      },
    );
  }
}

function samePoint(a: WatchedPoint | null, b: WatchedPoint | null): boolean {
  if (a === null || b === null) return a === b;
  return a.kind === b.kind && a.id === b.id && a.offset === b.offset;
}
