import type { Envelope } from '@resumable/protocol';
import { DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS, MAX_HELD_BATCHES } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import type { BackoffOptions } from '../retry/backoff.js';
import { Retrier, snapshotReadAction } from '../retry/retrier.js';

/**
 * A follower's resume point (a run's, or the thread stream's) against the batches other tabs
 * post. Another tab is untrusted input — a buggy tab, another version, an extension — so a
 * batch moves the point only where it continues it; anything else is settled by the
 * server, never by another tab's word:
 *
 * - `continues` (it starts at or before the point + 1 and goes past it): folded at once;
 * - `ahead` (it starts past the point + 1: events are missing, or it is made up): held, and
 *   the server is asked where the stream is;
 * - `behind` (all of it at or below the point, but past what this tab's own reads
 *   confirmed: two tabs told different stories about the same offsets): held, and the
 *   server's word replaces what the tab folded;
 * - `redelivery` (all of it at or below a confirmed point): dropped.
 *
 * One check at a time, spaced by the retry policy, bounded by `maxAttemptsWithoutProgress`
 * and ended by the server's own no: no tab can drive this one into a request loop (README,
 * "Architecture", the shared point).
 */
export type BatchFit = 'continues' | 'ahead' | 'behind' | 'redelivery';

/** Where `envelopes` (offsets strictly increasing, at least one) stand to `point`. */
export function fitBatch(
  point: number,
  confirmed: number,
  envelopes: readonly Envelope[],
): BatchFit {
  const first = (envelopes[0] as Envelope).offset;
  const last = (envelopes[envelopes.length - 1] as Envelope).offset;
  if (first > point + 1) return 'ahead';
  if (last > point) return 'continues';
  return last <= confirmed ? 'redelivery' : 'behind';
}

export interface SharedPointParts {
  env: Pick<ResumableEnvironment, 'now' | 'random' | 'setTimeout' | 'clearTimeout'>;
  backoff?: BackoffOptions | undefined;
  /** Checks in a row that found nothing new, or failed, before the held batches go. @default 10 */
  maxAttemptsWithoutProgress?: number | undefined;
  /** The point now; null before the first batch (which then sets it). */
  point(): number | null;
  /**
   * Folds a batch that continues the point (what is at or below it is dropped there); false
   * when it had a hole inside (the server is asked then).
   */
  fold(envelopes: Envelope[]): boolean;
  /**
   * Reads the server's point and takes it — `disputed`: even below the tab's own, replacing
   * what it folded. Resolves with it; null when there is nothing to check against (the
   * stream changed meanwhile, a server without the read). Rejects when the read failed.
   */
  check(disputed: boolean): Promise<number | null>;
}

export class SharedPoint {
  /** The highest point this tab's own reads confirmed (-1: none yet). */
  confirmed = -1;
  private held: Envelope[][] = [];
  private disputed = false;
  private timer: unknown = null;
  /** The check in flight (its identity: a `reset()` meanwhile discards its answer). */
  private checking: object | null = null;
  /** Checks in a row that found nothing new, or failed. */
  private idle = 0;
  private notBefore = 0;
  /** The server said no (`stop`/`forget`): no check until `cancel()` or `reset()`. */
  private refused = false;

  /** The one policy's delays space the checks. */
  private readonly retries: Retrier;

  constructor(private readonly parts: SharedPointParts) {
    this.retries = new Retrier(parts.env, { backoff: parts.backoff });
  }

  /** Another tab's batch. */
  offer(envelopes: Envelope[]): void {
    if (envelopes.length === 0) return;
    const point = this.parts.point();
    const fit = point === null ? 'continues' : fitBatch(point, this.confirmed, envelopes);
    if (fit === 'continues') {
      if (!this.parts.fold(envelopes)) this.schedule();
      return;
    }
    if (fit === 'redelivery') return;
    if (fit === 'behind') this.disputed = true;
    this.held.push(envelopes);
    if (this.held.length > MAX_HELD_BATCHES) this.held.shift();
    this.schedule();
  }

  /** This tab's own read (its stream, a snapshot) confirmed `point`. */
  confirm(point: number): void {
    if (point > this.confirmed) this.confirmed = point;
  }

  /** Another tab says the stream is past this tab's point, without a batch: checked. */
  doubt(): void {
    this.schedule();
  }

  /** This tab reads the network itself now: nothing pending (what it confirmed stays). */
  cancel(): void {
    if (this.timer !== null) this.parts.env.clearTimeout(this.timer);
    this.timer = null;
    this.checking = null;
    this.held = [];
    this.disputed = false;
    this.refused = false;
  }

  /** Another stream: forgets everything. */
  reset(): void {
    this.cancel();
    this.confirmed = -1;
    this.idle = 0;
    this.notBefore = 0;
  }

  private schedule(): void {
    if (this.timer !== null || this.checking !== null) return;
    if (this.refused) {
      this.held = [];
      return;
    }
    const { env } = this.parts;
    const delay = Math.max(0, this.notBefore - env.now());
    this.timer = env.setTimeout(() => {
      this.timer = null;
      void this.run();
    }, delay);
  }

  private async run(): Promise<void> {
    const token = {};
    this.checking = token;
    const before = this.parts.point();
    const disputed = this.disputed;
    this.disputed = false;
    let server: number | null = null;
    let failed = false;
    try {
      server = await this.parts.check(disputed);
    } catch (error) {
      failed = true;
      const action = snapshotReadAction(toResumable(error));
      this.refused = action === 'stop' || action === 'forget';
    }
    if (this.checking !== token) return;
    this.checking = null;
    const progressed = server !== null && (before === null || server > before);
    this.idle = progressed ? 0 : this.idle + 1;
    const { env, maxAttemptsWithoutProgress } = this.parts;
    this.notBefore = env.now() + this.retries.delay(this.idle + 1);
    if (failed) {
      // Asked again later (the batches kept), until too many reads failed in a row; never
      // after the server's own no (`schedule` drops the batches then).
      this.disputed ||= disputed;
      const max = maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS;
      if (this.idle < max) this.schedule();
      else this.held = [];
      return;
    }
    if (server !== null) this.confirm(server);
    let hole = false;
    for (const batch of this.held.splice(0)) {
      const point = this.parts.point();
      const fit = point === null ? 'redelivery' : fitBatch(point, this.confirmed, batch);
      if (fit === 'continues') hole = !this.parts.fold(batch) || hole;
      else if (fit === 'ahead') this.held.push(batch);
    }
    // Still past the server's point after a check that moved it: the stream went on after
    // the server answered (batches past the held bound were dropped meanwhile), so it is
    // asked again — a run that ended sends no batch to prompt it. After a check that found
    // nothing new they are made up (or the leader's world is not this server's): dropped.
    if (this.held.length === 0 && !hole) return;
    if (progressed) this.schedule();
    else this.held = [];
  }
}
