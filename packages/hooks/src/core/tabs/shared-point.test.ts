import type { Envelope } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_HELD_BATCHES } from '../base/defaults.js';
import { fitBatch, SharedPoint } from './shared-point.js';

const e = (offset: number) => ({ offset, event: { type: 'CUSTOM', name: 'x' } }) as Envelope;
const batch = (...offsets: number[]) => offsets.map(e);

/** Manual timers and clock: `advance(ms)` fires what is due, in order. */
function clock() {
  let now = 0;
  const timers: { at: number; fn: () => void }[] = [];
  return {
    env: {
      now: () => now,
      random: () => 0.999,
      setTimeout: (fn: () => void, ms: number) => {
        const timer = { at: now + ms, fn };
        timers.push(timer);
        return timer;
      },
      clearTimeout: (timer: unknown) => {
        const i = timers.indexOf(timer as (typeof timers)[number]);
        if (i >= 0) timers.splice(i, 1);
      },
    },
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const due = timers[0];
        if (!due || due.at > until) break;
        timers.shift();
        now = Math.max(now, due.at);
        due.fn();
        // The check's promise chain settles before the next timer.
        for (let i = 0; i < 10; i++) await Promise.resolve();
      }
      now = until;
    },
    pending: () => timers.length,
  };
}

/** A point folded like a follower's, with a server whose point is `server.at`. */
function follower(server: { at: number; fail?: boolean | ResumableError }, maxAttempts?: number) {
  const c = clock();
  const state = { point: 2 as number | null, folded: [] as number[], checks: [] as boolean[] };
  const shared = new SharedPoint({
    env: c.env,
    backoff: { initialMs: 100, maxMs: 1000, minMs: 10 },
    maxAttemptsWithoutProgress: maxAttempts,
    point: () => state.point,
    fold(envelopes) {
      if (state.point === null) state.point = envelopes[0]!.offset - 1;
      for (const { offset } of envelopes) {
        if (offset <= state.point) continue;
        if (offset !== state.point + 1) return false;
        state.point = offset;
        state.folded.push(offset);
      }
      return true;
    },
    async check(disputed) {
      state.checks.push(disputed);
      if (server.fail instanceof ResumableError) throw server.fail;
      if (server.fail) throw new Error('offline');
      state.point = server.at;
      return server.at;
    },
  });
  shared.confirm(2);
  return { c, state, shared };
}

describe('fitBatch', () => {
  it('continues, ahead, behind (past what was confirmed), redelivery', () => {
    expect(fitBatch(5, 2, batch(6))).toBe('continues');
    expect(fitBatch(5, 2, batch(4, 5, 6))).toBe('continues');
    expect(fitBatch(5, 2, batch(7))).toBe('ahead');
    expect(fitBatch(5, 2, batch(3, 4))).toBe('behind');
    expect(fitBatch(5, 4, batch(3, 4))).toBe('redelivery');
    expect(fitBatch(5, -1, batch(1))).toBe('behind');
  });
});

describe('SharedPoint', () => {
  it('a batch that skips ahead is held and the server asked once; the held batches that continue its point are folded', async () => {
    const server = { at: 3 };
    const { c, state, shared } = follower(server);
    shared.offer(batch(1000));
    shared.offer(batch(4, 5));
    expect(state.folded).toEqual([]);
    await c.advance(0);
    expect(state.checks).toEqual([false]);
    // The server's 3: the held 4–5 continue it; the made-up 1000 is asked about again later.
    expect(state.folded).toEqual([4, 5]);
    expect(state.point).toBe(5);
    expect(shared.confirmed).toBe(3);
  });

  it("held batches still past the server's point after a check are asked about again: the stream moved on meanwhile (e2e: a follower stayed at an empty reply for good)", async () => {
    const server = { at: 3 };
    const { c, state, shared } = follower(server);
    shared.offer(batch(5, 6)); // 4 missed (more than MAX_HELD_BATCHES arrived during a check)
    await c.advance(0);
    expect(state.checks).toEqual([false]);
    expect(state.point).toBe(3); // the server's answer came from before 5 existed
    server.at = 6; // the run went on and ended: no batch will come to prompt a check
    await c.advance(2_000);
    expect(state.checks).toEqual([false, false]);
    expect(state.point).toBe(6);
    expect(c.pending()).toBe(0);
  });

  it('a made-up batch far ahead costs one check more when the first moved the point, then is dropped', async () => {
    const { c, state, shared } = follower({ at: 3 });
    shared.offer(batch(1000));
    await c.advance(60_000);
    // The first check moved the point (2 → 3); the second found nothing new.
    expect(state.checks).toHaveLength(2);
    expect(state.point).toBe(3);
    expect(c.pending()).toBe(0);
  });

  it('a disagreement (a batch at or below the point, past what was confirmed) is a disputed check', async () => {
    const { c, state, shared } = follower({ at: 3 });
    shared.offer(batch(3)); // made up, continues: folded
    expect(state.point).toBe(3);
    shared.offer(batch(3)); // another story about 3
    shared.offer(batch(4));
    await c.advance(0);
    expect(state.checks).toEqual([true]);
    expect(state.folded).toEqual([3, 4]);
    // At or below the confirmed 3 now: a redelivery, nothing asked.
    shared.offer(batch(2, 3));
    await c.advance(10_000);
    expect(state.checks).toEqual([true]);
  });

  it('checks that find nothing new space out to the backoff ceiling: a flood of made-up batches costs a bounded number of reads', async () => {
    const { c, state, shared } = follower({ at: 2 });
    for (let ms = 0; ms < 10_000; ms += 10) {
      shared.offer(batch(1000 + ms));
      await c.advance(10);
    }
    // 10 s at one check per ≤ 1 s (after 100, 200, 400, 800 ms; the clock and jitter are fixed): 12, not 1,000.
    expect(state.checks.length).toBe(12);
    expect(state.folded).toEqual([]);
    expect(state.point).toBe(2);
  });

  it('a failed read keeps the batches and asks again, a bounded number of times; cancel drops everything', async () => {
    const server = { at: 4, fail: true };
    const { c, state, shared } = follower(server);
    for (let i = 0; i < MAX_HELD_BATCHES + 2; i++) shared.offer(batch(5 + i));
    await c.advance(60_000);
    expect(state.checks).toHaveLength(10);
    expect(c.pending()).toBe(0);
    // The server is back: the next batch that skips ahead asks again, and is folded after.
    server.fail = false;
    shared.offer(batch(5));
    await c.advance(60_000);
    expect(state.checks).toHaveLength(11);
    expect(state.folded).toEqual([5]);
    shared.offer(batch(100));
    shared.cancel();
    await c.advance(60_000);
    expect(state.checks).toHaveLength(11);
  });

  it('the server’s own no (401, 403: stop; 404: forget) ends the checks after one read, until cancel', async () => {
    for (const code of [
      'unauthorized',
      'forbidden',
      'run_not_found',
      'thread_not_found',
    ] as const) {
      const server = { at: 4, fail: new ResumableError(code, 'no') as ResumableError | boolean };
      const { c, state, shared } = follower(server);
      for (let i = 0; i < MAX_HELD_BATCHES + 2; i++) shared.offer(batch(5 + i));
      await c.advance(60_000);
      expect([code, state.checks.length, c.pending()]).toEqual([code, 1, 0]);
      // More batches that skip ahead ask nothing, and are not kept.
      server.fail = false;
      shared.offer(batch(7));
      await c.advance(60_000);
      expect(state.checks).toHaveLength(1);
      // This tab read the network itself meanwhile (`cancel`): the next one asks again.
      shared.cancel();
      shared.offer(batch(5));
      await c.advance(60_000);
      expect(state.checks).toHaveLength(2);
      expect(state.folded).toEqual([5]);
    }
  });

  it('failed reads are asked again maxAttemptsWithoutProgress times in a row, as the user set it', async () => {
    const { c, state, shared } = follower({ at: 4, fail: true }, 3);
    shared.offer(batch(5));
    await c.advance(60_000);
    expect(state.checks).toEqual([false, false, false]);
    expect(c.pending()).toBe(0);
  });

  it('a check answered after cancel or reset is dropped', async () => {
    let answer: (n: number) => void = () => {};
    const c = clock();
    let point = 2;
    const shared = new SharedPoint({
      env: c.env,
      point: () => point,
      fold: () => {
        point = 99;
        return true;
      },
      check: () => new Promise<number>((resolve) => (answer = resolve)),
    });
    shared.offer(batch(10));
    await c.advance(0);
    shared.reset();
    answer(9);
    await c.advance(0);
    expect(point).toBe(2);
    expect(shared.confirmed).toBe(-1);
  });
});
