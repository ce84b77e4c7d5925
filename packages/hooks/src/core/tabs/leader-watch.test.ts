import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { LEADER_GRACE_MS, LEADER_SILENT_MS as SILENT_MS } from '../base/defaults.js';
import type { Delivered, WatchedPoint } from './leader-watch.js';
import { LeaderWatch } from './leader-watch.js';

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
  const view = { visible: true };
  const watch = new LeaderWatch({
    env: { now: () => now, random: () => 0.5 },
    visible: () => view.visible,
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
  /** Another tab's message, as `conversation.ts` tells the watch. */
  const hear = (tab: string, lead: boolean, delivered: Delivered | null) =>
    watch.heard(tab, lead, delivered);
  const run = async (ms: number, each?: (at: number) => void) => {
    for (const end = now + ms; now < end; ) {
      now += 500;
      each?.(now);
      watch.tick();
      await Promise.resolve();
      await Promise.resolve();
    }
  };
  return { watch, point, reads, takeovers, run, hear, view };
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

  it('a new leader (another tab took the lock) gets its own staleMs: the follower that found the old one behind does not steal from it — once, until the watch sees progress', async () => {
    const w = watched({ at: 7 });
    const at4 = { kind: 'run', id: 'r1', offset: 4 } as const;
    w.hear('a', true, at4);
    await w.run(4000, (at) => {
      // a (hung) posts nothing after 0; b took the lock at 1500 and leads, at 4 as well;
      // c says it leads at 3000 (a second change in the same streak does not hold off again).
      if (at >= 1500) w.hear('b', true, at4);
      if (at === 3000) w.hear('c', true, at4);
    });
    // Behind at 1000; b's lead at 1500 starts the watch over: read at 2500, behind, the grace.
    expect(w.reads).toEqual([1000, 2500]);
    expect(w.takeovers).toEqual([2500 + LEADER_GRACE_MS]);
  });

  it('the leader delivered what the server has while this tab’s own point lags (its gap check backing off): no takeover; a leader really behind the server loses the lock', async () => {
    const w = watched({ at: 7 });
    await w.run(10_000, () => w.hear('a', true, { kind: 'run', id: 'r1', offset: 7 }));
    // This tab's own 4 stands still: reads as for a quiet run, none of them a takeover.
    expect(w.reads).toEqual([1000, 2500, 4000, 6000, 8000, 10_000]);
    expect(w.takeovers).toEqual([]);

    const behind = watched({ at: 7 });
    await behind.run(2500, () => {
      behind.hear('a', true, { kind: 'run', id: 'r1', offset: 5 });
      // Another run's batch says nothing about this one.
      behind.hear('a', false, { kind: 'run', id: 'r0', offset: 9 });
    });
    expect(behind.reads).toEqual([1000]);
    expect(behind.takeovers).toEqual([1000 + LEADER_GRACE_MS]);

    // Behind at the read, it delivers what the server had within the grace: not taken over.
    const late = watched({ at: 7 });
    await late.run(3000, (at) => {
      if (at >= 1500) late.hear('a', true, { kind: 'run', id: 'r1', offset: 7 });
    });
    expect([late.reads, late.takeovers]).toEqual([[1000, 2500], []]);
  });

  it('a claim past the server’s answer is made up (the leader’s events come from that server): it holds nothing off, and claims count again only once this tab’s own point moves', async () => {
    const w = watched({ at: 7 });
    // Another tab claims ever higher offsets of the run (1000 + the time).
    await w.run(2500, (at) => w.hear('x', false, { kind: 'run', id: 'r1', offset: 1000 + at }));
    expect(w.reads).toEqual([1000]);
    expect(w.takeovers).toEqual([1000 + LEADER_GRACE_MS]);

    // Doubted, a claim of the server's own 7 counts only once this tab's point moved (to 5).
    const doubted = watched({ at: 7 });
    await doubted.run(2000, (at) =>
      doubted.hear('x', false, { kind: 'run', id: 'r1', offset: at === 1000 ? 1000 : 7 }),
    );
    expect(doubted.takeovers).toEqual([2000]);
    doubted.point.p = { kind: 'run', id: 'r1', token: 'tk', offset: 5 };
    await doubted.run(5000, () => doubted.hear('a', true, { kind: 'run', id: 'r1', offset: 7 }));
    // Reads at 1000 (the 1000 made up), then spaced as for a quiet run: 5 stands still, and
    // the leader's 7 is the server's.
    expect(doubted.reads).toEqual([1000, 3500, 5000, 6500]);
    expect(doubted.takeovers).toEqual([2000]);

    // This tab's own point past the server too (it folded made-up events): not behind.
    const past = watched({ at: 7 });
    past.point.p = { kind: 'run', id: 'r1', token: 'tk', offset: 9 };
    past.watch.reset();
    await past.run(2000, (at) =>
      past.hear('x', false, { kind: 'run', id: 'r1', offset: 1000 + at }),
    );
    expect([past.reads, past.takeovers]).toEqual([[1000], []]);
  });

  it(`a silent leader (a hidden tab the browser throttles to a tick a minute) is not stolen from while the server is not past it; a visible follower takes over after ${SILENT_MS} ms of silence`, async () => {
    const w = watched({ at: 4 });
    await w.run(SILENT_MS + 500);
    const spaced = Array.from({ length: (SILENT_MS - 4000) / 2000 + 1 }, (_, n) => 4000 + n * 2000);
    expect(w.reads).toEqual([1000, 2500, ...spaced]);
    expect(w.takeovers).toEqual([SILENT_MS + 500]);

    // Nothing to ask the server (no live run, no thread): the silence bound alone.
    const idle = watched({ at: 4 });
    idle.point.p = null;
    idle.watch.reset();
    await idle.run(SILENT_MS + 500);
    expect([idle.reads, idle.takeovers]).toEqual([[], [SILENT_MS + 500]]);

    // A hidden follower never takes over for silence (its run's server check still does).
    const hidden = watched({ at: 4 });
    hidden.view.visible = false;
    await hidden.run(SILENT_MS + 500);
    expect(hidden.takeovers).toEqual([]);
  });
});
