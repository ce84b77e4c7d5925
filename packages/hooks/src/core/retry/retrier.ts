import type { ErrorAction } from '@resumable/protocol';
import { errorAction, ResumableError } from '@resumable/protocol';
import { DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS, DEFAULT_MAX_RETRIES } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { BackoffOptions } from './backoff.js';
import { retryDelay } from './backoff.js';

/** The limits of one retrying path (a session's options name them). */
export interface RetryLimits {
  /** The policy's delays (`backoff.ts`). */
  backoff?: BackoffOptions | undefined;
  /** Failed attempts in a row before the path gives up with the error. @default Infinity */
  maxRetries?: number | undefined;
  /** Answered failures in a row without progress before `no_progress`. @default 10 */
  maxAttemptsWithoutProgress?: number | undefined;
  /** The app's veto on a retry (partysocket's habit): false gives up with the error. */
  shouldReconnect?: ((error: ResumableError, attempt: number) => boolean) | undefined;
}

/** One failed attempt, as the path that made it knows it. */
export interface Failure {
  /** Its number in the path's count (1-based). @default the retrier's own count, plus one */
  attempt?: number;
  /**
   * The server answered (anything but a request that got no answer at all): such failures
   * count toward `maxAttemptsWithoutProgress`. @default error.code !== 'network'
   */
  answered?: boolean;
  /** The attempt moved the path on (a new offset) before it failed: the count starts again. */
  progressed?: boolean;
  /**
   * What the error means, when the path acted on it already (a snapshot loaded after a 410:
   * the stream is asked again). @default errorAction(error)
   */
  action?: ErrorAction;
}

/** What a failed attempt means: try again after `delay` ms, or give up with `error`. */
export type Verdict =
  | { retry: true; attempt: number; delay: number }
  | {
      retry: false;
      error: ResumableError;
      /** True when the error's own action is no retry (the server's no); false: a limit. */
      refused: boolean;
    };

/** Which path a retrier judges, for the observers (`observeClient`). */
export interface RetryScope extends ObservedScope {
  /** `stream`, `outbox`, `cancel`, `interrupts`… */
  readonly path: string;
}

/**
 * A failed attempt judged by a retrier (`observeClient`): retried after `delay` ms, or given
 * up (`delay` null, `gaveUp` says why).
 */
export interface ObservedRetry extends ObservedBase {
  /** A failed attempt was judged: retried after `delay`, or given up. */
  readonly type: 'retry';
  /** The path that failed: `stream` (a run's events), `outbox` (a prompt's POST), `cancel`… */
  readonly path: string;
  /** The attempt's number in the path's count (1-based). */
  readonly attempt: number;
  /** The wait before the next attempt (ms), or null when the path gave up. */
  readonly delay: number | null;
  /** The server's `Retry-After` in seconds, as it sent it (the delay is clamped), or null. */
  readonly retryAfter: number | null;
  /** What the attempt failed with. */
  readonly error: ResumableError;
  /** `refused`: the error's own action is no retry; `limit`: a limit or the app's veto. */
  readonly gaveUp: 'refused' | 'limit' | null;
}

/**
 * The one retry executor (TanStack Query's `retryer.ts` habit): every path that retries — a
 * run's stream and its cancel, the thread stream, a prompt's POST, the interrupts' read,
 * announced runs, other tabs' checks — judges a failure here and waits what it says. What a
 * code means is decided once beside the codes (`errorAction`); the limits (`maxRetries`,
 * `maxAttemptsWithoutProgress`, the app's veto) and the delay (`retryDelay`: full jitter, a
 * server's `Retry-After` clamped) are applied here, the same for every path. The path keeps
 * its request and its own wakeable wait (a loop's `LoopLife.sleep`), or has the retrier
 * schedule the next attempt (`schedule`).
 */
export class Retrier {
  /** Failed attempts in a row (the policy's attempt number). */
  private failures = 0;
  /** Answered failures in a row without progress. */
  private withoutProgress = 0;
  private timer: unknown;

  constructor(
    /** Its timers schedule (`schedule`); a retrier that only judges and spaces needs none. */
    private readonly env: Pick<ResumableEnvironment, 'random'> &
      Partial<Pick<ResumableEnvironment, 'setTimeout' | 'clearTimeout'>>,
    private readonly limits: RetryLimits = {},
    /** Names the path to the observers; without it the retrier tells nothing. */
    private readonly scope?: RetryScope,
  ) {}

  /** Failed attempts in a row so far. */
  get attempt(): number {
    return this.failures;
  }

  /** Judges failed attempt `error`: retried after the policy's delay, or given up. */
  failed(error: ResumableError, failure: Failure = {}): Verdict {
    const attempt = failure.attempt ?? this.failures + 1;
    const verdict = this.judge(error, failure);
    if (this.scope && observed()) {
      const { endpoint, key, path } = this.scope;
      notify<ObservedRetry>({
        type: 'retry',
        endpoint,
        key,
        path,
        attempt,
        delay: verdict.retry ? verdict.delay : null,
        retryAfter: error.retryAfter ?? null,
        error: verdict.retry ? error : verdict.error,
        gaveUp: verdict.retry ? null : verdict.refused ? 'refused' : 'limit',
      });
    }
    return verdict;
  }

  private judge(error: ResumableError, failure: Failure): Verdict {
    if ((failure.action ?? errorAction(error)) !== 'retry') {
      return { retry: false, error, refused: true };
    }
    const attempt = failure.attempt ?? this.failures + 1;
    this.failures = attempt;
    if (failure.progressed) this.withoutProgress = 0;
    else if (failure.answered ?? error.code !== 'network') this.withoutProgress++;
    const max = this.limits.maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS;
    if (this.withoutProgress >= max) {
      const attempts = this.withoutProgress;
      this.succeeded();
      return { retry: false, error: noProgress(attempts, error), refused: false };
    }
    const maxRetries = this.limits.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (attempt > maxRetries || this.limits.shouldReconnect?.(error, attempt) === false) {
      return { retry: false, error, refused: false };
    }
    return { retry: true, attempt, delay: this.delay(attempt, error.retryAfter) };
  }

  /** The wait before attempt `attempt` (1-based): the policy's delay, or a clamped `Retry-After`. */
  delay(attempt: number, retryAfterSeconds?: number): number {
    return retryDelay(attempt, this.env.random, this.limits.backoff, retryAfterSeconds);
  }

  /** The path moved on (a new offset, a stream that stayed up): `no_progress` counts from 0. */
  progressed(): void {
    this.withoutProgress = 0;
  }

  /** The attempt succeeded: both counts start again. */
  succeeded(): void {
    this.failures = 0;
    this.withoutProgress = 0;
  }

  /** Runs `again` after `delay` ms (one pending at most); returns the delay. */
  schedule(delay: number, again: () => void): number {
    this.cancel();
    const fire = () => {
      this.timer = undefined;
      again();
    };
    this.timer = this.env.setTimeout
      ? this.env.setTimeout(fire, delay)
      : globalThis.setTimeout(fire, delay);
    return delay;
  }

  /** A retry is waiting out the policy's delay: nothing should go out before it. */
  waiting(): boolean {
    return this.timer !== undefined;
  }

  cancel(): void {
    if (this.timer === undefined) return;
    if (this.env.clearTimeout) this.env.clearTimeout(this.timer);
    else globalThis.clearTimeout(this.timer as ReturnType<typeof setTimeout>);
    this.timer = undefined;
  }

  reset(): void {
    this.cancel();
    this.succeeded();
  }
}

/** The typed end of bounded retries against a server that answers without progress. */
export function noProgress(attempts: number, last: ResumableError): ResumableError {
  return new ResumableError(
    'no_progress',
    `${attempts} attempts without progress (last: ${last.code}: ${last.message})`,
    { cause: last, ...(last.status === undefined ? {} : { status: last.status }) },
  );
}

/**
 * What the error of a snapshot read (`GET /runs/{id}`, `GET /threads/{id}`) means: its
 * "read the snapshot instead" is no answer to a snapshot read, so it is retried.
 */
export function snapshotReadAction(error: ResumableError): ErrorAction {
  const action = errorAction(error);
  return action === 'snapshot' ? 'retry' : action;
}
