import type { ResumableError } from '@resumable/protocol';
import { errorAction } from '@resumable/protocol';
import type { ResumableEnvironment } from '../base/env.js';
import { DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS, noProgress } from '../run/reconnect-loop.js';
import type { BackoffOptions } from './backoff.js';
import { retryDelay } from './backoff.js';

/** What a failed attempt means: give up with this error, or try again later. */
export type Verdict = { retry: true } | { retry: false; error: ResumableError };

/**
 * Failures in a row of one kind of request (the chat's prompt POST), judged by the one
 * decision table (`errorAction`) and retried through the one policy (`retryDelay`), up to
 * `maxAttemptsWithoutProgress` answers (network failures do not count): then `no_progress`.
 */
export class Retrier {
  private failures = 0;
  private timer: unknown;

  constructor(
    private readonly env: Pick<ResumableEnvironment, 'random' | 'setTimeout' | 'clearTimeout'>,
    private readonly options: {
      backoff?: BackoffOptions | undefined;
      maxAttemptsWithoutProgress?: number | undefined;
    },
  ) {}

  judge(error: ResumableError): Verdict {
    if (errorAction(error) !== 'retry') return { retry: false, error };
    this.failures++;
    const max = this.options.maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS;
    if (this.failures >= max && error.code !== 'network') {
      const failures = this.failures;
      this.failures = 0;
      return { retry: false, error: noProgress(failures, error) };
    }
    return { retry: true };
  }

  succeeded(): void {
    this.failures = 0;
  }

  /**
   * Runs `again` after the policy's delay for the failures so far (one pending at most);
   * returns that delay.
   */
  schedule(error: ResumableError, again: () => void): number {
    this.cancel();
    const delay = retryDelay(
      Math.max(1, this.failures),
      this.env.random,
      this.options.backoff,
      error.retryAfter,
    );
    this.timer = this.env.setTimeout(() => {
      this.timer = undefined;
      again();
    }, delay);
    return delay;
  }

  /** A retry is waiting out the policy's delay: nothing should go out before it. */
  waiting(): boolean {
    return this.timer !== undefined;
  }

  cancel(): void {
    if (this.timer === undefined) return;
    this.env.clearTimeout(this.timer);
    this.timer = undefined;
  }

  reset(): void {
    this.cancel();
    this.failures = 0;
  }
}
