/**
 * Starts per key in a sliding window: at most `limit` in any `windowMs`. Keys are client
 * addresses and thread ids, so the table is bounded: past `maxKeys` the least recently
 * used key is forgotten (a forgotten client starts with a clean window).
 */
export class RateWindow {
  private readonly starts = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds until `key` may start again; 0 when it may now (nothing is recorded). */
  retryAfter(key: string, now: number): number {
    const times = this.recent(key, now);
    if (times.length < this.limit) return 0;
    return Math.max(1, Math.ceil((times[0]! + this.windowMs - now) / 1000));
  }

  record(key: string, now: number): void {
    const times = this.recent(key, now);
    times.push(now);
    // Re-inserted: the map's order is least recently used first.
    this.starts.delete(key);
    this.starts.set(key, times);
    if (this.starts.size > this.maxKeys) {
      const oldest = this.starts.keys().next().value;
      if (oldest !== undefined) this.starts.delete(oldest);
    }
  }

  private recent(key: string, now: number): number[] {
    const times = this.starts.get(key) ?? [];
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - this.windowMs) drop++;
    if (drop > 0) times.splice(0, drop);
    return times;
  }
}
