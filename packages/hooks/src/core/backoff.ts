/**
 * Reconnect delays: exponential with full jitter (AWS's "Exponential Backoff and Jitter"),
 * capped. Full jitter spreads a crowd of clients that lost the same server over the whole
 * window instead of letting them return in synchronized waves.
 */
export interface BackoffOptions {
  /** Delay ceiling of the first retry, in ms. @default 250 */
  initialMs?: number;
  /** Largest delay, in ms. @default 10000 */
  maxMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialMs: 250, maxMs: 10_000 };

/** Delay before retry number `attempt` (1-based): uniform in [0, min(max, initial·2^(attempt-1))). */
export function backoffDelay(
  attempt: number,
  random: () => number,
  options: BackoffOptions = {},
): number {
  const initial = options.initialMs ?? DEFAULT_BACKOFF.initialMs;
  const max = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const exp = Math.min(max, initial * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.floor(random() * exp);
}
