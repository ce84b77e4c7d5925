import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { WatchedPoint } from './leader-watch.js';
import { LEADER_GRACE_MS, LeaderWatch } from './leader-watch.js';

const STALE_MS = 1000;

/**
 * A follower at `point` (offset 4) whose server is at `server.at` (or refuses with
 * `server.error`), ticked every 500 ms like the heartbeat; reads and takeovers logged.
 */
function watched(server: { at: number; error?: ResumableError }) {
  let now = 0;
  const point: { p: WatchedPoint | null } = {
    p: { kind: 'run', id: 'r1', token: 'tk', offset: 4 },
  };
  const reads: number[] = [];
  const takeovers: number[] = [];
  const watch = new LeaderWatch({
    env: { now: () => now, random: () => 0.5 },
    backoff: { initialMs: 400, maxMs: 2000, minMs: 100 },
    staleMs: STALE_MS,
    point: () => point.p,
    serverOffset: async () => {
      reads.push(now);
      if (server.error) throw server.error;
      return server.at;
    },
    takeOver: () => takeovers.push(now),
  });
  watch.reset();
  const run = async (ms: number, each?: (at: number) => void) => {
    for (const end = now + ms; now < end; ) {
      now += 500;
      each?.(now);
      watch.tick();
      await Promise.resolve();
      await Promise.resolve();
    }
  };
  return { watch, point, reads, takeovers, run };
}

describe('LeaderWatch', () => {
  it('a point still for staleMs while the server is past it: one read, the grace, then takeover', async () => {
    const w = watched({ at: 7 });
    await w.run(1000 + LEADER_GRACE_MS + 500);
    expect(w.reads).toEqual([1000]);
    expect(w.takeovers).toEqual([1000 + LEADER_GRACE_MS]);
  });

  it('a quiet run (the server not past the point): no takeover; reads spaced by staleMs and the policy', async () => {
    const w = watched({ at: 4 });
    await w.run(10_000);
    // At 1000, then staleMs + retryDelay(n) (0.5 · min(2000, 400·2^(n-1)): 200, 400, 800,
    // 1000…) after each answer, on the next 500 ms tick.
    expect(w.reads).toEqual([1000, 2500, 4000, 6000, 8000, 10_000]);
    expect(w.takeovers).toEqual([]);
  });

  it('a quiet thread (no live run): checks space out, doubling staleMs up to 5 min', async () => {
    const w = watched({ at: 4 });
    w.point.p = { kind: 'thread', id: 't1', token: 'tk', offset: 4 };
    w.watch.reset();
    await w.run(20_000);
    // At 1000, then staleMs·2^(n-1) + retryDelay(n) (200, 400, 800, 1000) after each answer,
    // on the next 500 ms tick; a quiet run's reads stay every staleMs + retryDelay (above).
    expect(w.reads).toEqual([1000, 2500, 5000, 10_000, 19_000]);
    expect(w.takeovers).toEqual([]);
  });

  it('the leader delivers within the grace, or the point moves: no takeover, the watch starts over', async () => {
    const w = watched({ at: 7 });
    await w.run(1500, (at) => {
      if (at === 1500) w.point.p = { kind: 'run', id: 'r1', token: 'tk', offset: 7 };
    });
    await w.run(500);
    expect(w.reads).toEqual([1000]);
    expect(w.takeovers).toEqual([]);
    // No live run (it ended): nothing is asked.
    w.point.p = null;
    await w.run(10_000);
    expect(w.reads).toEqual([1000]);
  });

  it('the server’s own no (401, 403, 404) ends the reads until the point changes; a failed read is spaced', async () => {
    for (const code of ['unauthorized', 'forbidden', 'run_not_found'] as const) {
      const w = watched({ at: 7, error: new ResumableError(code, 'no') });
      await w.run(10_000);
      expect([code, w.reads, w.takeovers]).toEqual([code, [1000], []]);
    }
    const failing = watched({ at: 7, error: new ResumableError('network', 'offline') });
    await failing.run(5000);
    expect(failing.reads).toEqual([1000, 2500, 4000]);
    expect(failing.takeovers).toEqual([]);
  });

  it('a 429 or 503 with Retry-After spaces the next check by it (clamped to the policy), not by the backoff alone', async () => {
    const cases = [
      // 1.5 s: staleMs + 1500 after each failed read, on the next 500 ms tick.
      ['too_many_requests', 429, 1.5, [1000, 3500, 6000, 8500]],
      // An hour: the policy's maxMs (2 s) at most.
      ['store_unavailable', 503, 3600, [1000, 4000, 7000, 10_000]],
    ] as const;
    for (const [code, status, retryAfter, reads] of cases) {
      const w = watched({ at: 7, error: new ResumableError(code, 'busy', { status, retryAfter }) });
      await w.run(10_000);
      expect([code, w.reads, w.takeovers]).toEqual([code, reads, []]);
    }
  });
});
