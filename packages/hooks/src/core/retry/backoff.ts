import { DEFAULT_BACKOFF } from '../base/defaults.js';
/**
 * The one retry policy of the client: every path that retries (event stream, snapshot,
 * start POST, cancel, history, outbox) waits `retryDelay()` before trying again.
 *
 * Exponential with full jitter (AWS's "Exponential Backoff and Jitter"), capped, and never
 * below `minMs`: full jitter spreads a crowd of clients that lost the same server over the
 * whole window, and the floor means no server answer (`Retry-After: 0`, a 204 or 410
 * forever) can turn the client into a request loop.
 */
export interface BackoffOptions {
  /** Delay ceiling of the first retry, in ms. @default 250 */
  initialMs?: number;
  /** Largest delay, in ms (also caps a server's `Retry-After`). @default 10000 */
  maxMs?: number;
  /** Smallest delay of any retry, in ms (also floors `Retry-After: 0`). @default 50 */
  minMs?: number;
}

/** `setTimeout` takes a signed 32-bit delay; anything above fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function bounds(options: BackoffOptions): { min: number; max: number; initial: number } {
  const max = Math.min(MAX_TIMER_MS, Math.max(1, finiteOr(options.maxMs, DEFAULT_BACKOFF.maxMs)));
  const min = Math.min(max, Math.max(1, finiteOr(options.minMs, DEFAULT_BACKOFF.minMs)));
  const initial = Math.max(min, finiteOr(options.initialMs, DEFAULT_BACKOFF.initialMs));
  return { min, max, initial };
}

function finiteOr(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * Delay before retry number `attempt` (1-based): uniform in
 * [min, min(max, initial·2^(attempt-1))).
 */
export function backoffDelay(
  attempt: number,
  random: () => number,
  options: BackoffOptions = {},
): number {
  const { min, max, initial } = bounds(options);
  const exp = Math.min(max, initial * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.max(min, Math.floor(random() * exp));
}

/**
 * The wait before retry `attempt`: the server's `Retry-After` (seconds) when it gave one,
 * clamped to the policy's [min, max]; else `backoffDelay`. Always a finite delay a timer
 * can hold.
 */
export function retryDelay(
  attempt: number,
  random: () => number,
  options: BackoffOptions = {},
  retryAfterSeconds?: number,
): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)) {
    const { min, max } = bounds(options);
    return Math.min(max, Math.max(min, Math.ceil(retryAfterSeconds * 1000)));
  }
  return backoffDelay(attempt, random, options);
}

/** A timer delay that `setTimeout` holds as given (never the 1 ms of an overflow). */
export function timerDelay(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) return ms > 0 ? MAX_TIMER_MS : 0;
  return Math.min(MAX_TIMER_MS, ms);
}
