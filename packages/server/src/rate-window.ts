import { ResumableError } from '@resumable/protocol';

/**
 * A sliding-window budget per key: at most `limit` (starts, or bytes) in any `windowMs`.
 * Keys are client addresses and thread ids, so the table is bounded: past `maxKeys` the
 * least recently used key is forgotten (a forgotten client starts with a clean window).
 */
export class RateWindow {
  private readonly entries = new Map<string, Array<{ at: number; weight: number }>>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds until `weight` more fits for `key`; 0 when it fits now (nothing is recorded). */
  retryAfter(key: string, now: number, weight = 1): number {
    const list = this.recent(key, now);
    let used = list.reduce((sum, e) => sum + e.weight, 0);
    if (used + weight <= this.limit) return 0;
    // Wait until enough of the oldest entries leave the window (never for a weight over
    // the limit by itself: that waits for the whole window).
    for (const entry of list) {
      used -= entry.weight;
      if (used + weight <= this.limit) {
        return Math.max(1, Math.ceil((entry.at + this.windowMs - now) / 1000));
      }
    }
    return Math.ceil(this.windowMs / 1000);
  }

  record(key: string, now: number, weight = 1): void {
    const list = this.recent(key, now);
    list.push({ at: now, weight });
    // Re-inserted: the map's order is least recently used first.
    this.entries.delete(key);
    this.entries.set(key, list);
    if (this.entries.size > this.maxKeys) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  private recent(key: string, now: number): Array<{ at: number; weight: number }> {
    const list = this.entries.get(key) ?? [];
    let drop = 0;
    while (drop < list.length && list[drop]!.at <= now - this.windowMs) drop++;
    if (drop > 0) list.splice(0, drop);
    return list;
  }
}

/** `429 too_many_requests`, answered with `Retry-After: retryAfter` (seconds). */
export function tooMany(message: string, retryAfter: number): ResumableError {
  return new ResumableError('too_many_requests', message, { retryAfter });
}
