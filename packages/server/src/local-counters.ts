import { RateWindow } from './rate-window.js';
import type { QuotaHold, RateRefusal, RateTake, SharedCounters } from './stores/types.js';

/**
 * The rate windows and quotas of one server instance, for stores that are not shared
 * (memory, SQLite): the `SharedCounters` contract, counted in this process. Every call
 * does its work before it returns, with no await in between, so requests on this instance
 * cannot overshoot a limit by racing. Bounded like `RateWindow`: the least recently used
 * keys are forgotten past 100,000 per window.
 */
export class LocalCounters implements SharedCounters {
  /** Windows by scope, name and limit (a `RateWindow` holds one limit and span). */
  private readonly windows = new Map<string, RateWindow>();
  /** What each client holds, by quota name: key → held ids. */
  private readonly quotas = new Map<string, Map<string, Set<string>>>();

  check(windows: readonly RateTake[]): Promise<RateRefusal | null> {
    return Promise.resolve(this.refusal(windows, Date.now()));
  }

  take(windows: readonly RateTake[]): Promise<RateRefusal | null> {
    const now = Date.now();
    const refused = this.refusal(windows, now);
    if (refused) return Promise.resolve(refused);
    for (const window of windows) {
      if (window.weight > 0) this.window(window).record(window.key, now, window.weight);
    }
    return Promise.resolve(null);
  }

  held(name: string, key: string): Promise<number> {
    return Promise.resolve(this.quotas.get(name)?.get(key)?.size ?? 0);
  }

  hold(hold: QuotaHold): Promise<number | null> {
    let byKey = this.quotas.get(hold.name);
    if (!byKey) {
      byKey = new Map();
      this.quotas.set(hold.name, byKey);
    }
    const held = byKey.get(hold.key) ?? new Set<string>();
    if (!held.has(hold.id) && held.size >= hold.limit) return Promise.resolve(held.size);
    held.add(hold.id);
    byKey.set(hold.key, held);
    return Promise.resolve(null);
  }

  /** Holds here last as long as the process: nothing lapses, nothing to renew. */
  renew(_hold: QuotaHold): Promise<void> {
    return Promise.resolve();
  }

  release(hold: QuotaHold): Promise<void> {
    const byKey = this.quotas.get(hold.name);
    const held = byKey?.get(hold.key);
    if (held?.delete(hold.id) && held.size === 0) byKey!.delete(hold.key);
    return Promise.resolve();
  }

  private refusal(windows: readonly RateTake[], now: number): RateRefusal | null {
    for (let index = 0; index < windows.length; index++) {
      const window = windows[index]!;
      if (window.weight === 0) continue;
      const retryAfter = this.window(window).retryAfter(window.key, now, window.weight);
      if (retryAfter > 0) return { index, retryAfter };
    }
    return null;
  }

  private window(take: RateTake): RateWindow {
    const id = `${take.scope}\n${take.name}\n${take.limit}\n${take.windowMs}`;
    let window = this.windows.get(id);
    if (!window) {
      window = new RateWindow(take.limit, take.windowMs);
      this.windows.set(id, window);
    }
    return window;
  }
}
