import type { RunSnapshot } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import {
  READ_BUDGET as BUDGET,
  DELETE_CHECKS,
  MAX_IN_FLIGHT,
  MAX_KNOWN,
  READ_WINDOW_MS as WINDOW_MS,
} from '../base/defaults.js';
import type { BackoffOptions } from '../retry/backoff.js';
import type { RunSession } from '../run/run-session.js';
import { knownRun, parseTabMessage, threadGone } from './announced-runs.js';

/** Another tab's "I started a run on this key", checked before the chat acts on it. */
describe('parseTabMessage', () => {
  const good = { type: 'run', key: 'c', runId: 'r1', threadId: 't1', token: 'tk' };

  it('keeps a message of the right shape, with a prompt that is a user message with an id', () => {
    const prompt = { id: 'u1', role: 'user', content: 'hi' };
    expect(parseTabMessage({ ...good, prompt }, 'c')).toEqual({ ...good, prompt });
    expect(parseTabMessage({ ...good, regenerated: { runId: 'r1', parentId: 'u0' } }, 'c')).toEqual(
      { ...good, regenerated: { runId: 'r1', parentId: 'u0' } },
    );
  });

  it('drops a prompt of the wrong shape (the run is still announced), and wrong ids', () => {
    for (const prompt of ['x', 7, {}, { id: 'u1', role: 'assistant' }, { id: '', role: 'user' }]) {
      expect(parseTabMessage({ ...good, prompt }, 'c')).toEqual(good);
    }
    for (const bad of [
      null,
      'run',
      { ...good, key: 'other' },
      { ...good, runId: '' },
      { ...good, runId: 7 },
      { ...good, runId: 'x'.repeat(257) },
      { ...good, threadId: null },
    ]) {
      expect(parseTabMessage(bad, 'c')).toBeNull();
    }
    const regenerated = { runId: 'r1', parentId: 'p'.repeat(300) };
    expect(parseTabMessage({ ...good, regenerated }, 'c')).toEqual(good);
  });
});

/** `threadGone` over a stand-in run: each read's answer in turn, timers run at once. */
function goneOver(answers: (ResumableError | null)[]) {
  let reads = 0;
  const run = {
    env: { random: () => 0.5, setTimeout: (fn: () => void) => setTimeout(fn, 0) },
    api: {
      threadBody: async () => {
        const answer = answers[Math.min(reads++, answers.length - 1)];
        if (answer) throw answer;
        return {};
      },
    },
  } as unknown as RunSession;
  return { run, reads: () => reads };
}

describe('threadGone', () => {
  it('true on the server’s 404; a thread still there is read DELETE_CHECKS times, then false', async () => {
    const gone = goneOver([null, new ResumableError('thread_not_found', 'gone')]);
    expect(await threadGone(gone.run, 't', 'tok', undefined, () => true)).toBe(true);
    expect(gone.reads()).toBe(2);
    const kept = goneOver([null]);
    expect(await threadGone(kept.run, 't', 'tok', undefined, () => true)).toBe(false);
    expect(kept.reads()).toBe(DELETE_CHECKS);
  });

  it('the server’s own no (401, 403) ends it after one read: asking again changes nothing', async () => {
    for (const code of ['unauthorized', 'forbidden'] as const) {
      const refused = goneOver([new ResumableError(code, 'no')]);
      expect(await threadGone(refused.run, 't', 'tok', undefined, () => true)).toBe(false);
      expect(refused.reads()).toBe(1);
    }
  });
});

/** The policy the stand-in chat was given: retryDelay(n) is 500, 1000, 2000, 4000, 4000… (random 0.5). */
const BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 8000, minMs: 100 };

/**
 * `knownRun` over a stand-in session following run `own`: each read answers `answer(runId)`
 * (a snapshot's thread, or an error) once `release()` lets it; reads (with the clock's time)
 * and kept snapshots logged; `clock.now` moves only when a test moves it.
 */
function knownOver(answer: (runId: string) => string | ResumableError) {
  const reads: string[] = [];
  const readAt: number[] = [];
  const kept: string[] = [];
  const clock = { now: 0 };
  let pending: (() => void)[] = [];
  const run = {
    env: { now: () => clock.now, random: () => 0.5 },
    getState: () => ({ runId: 'own' }),
    api: {
      getRun: (runId: string) => {
        reads.push(runId);
        readAt.push(clock.now);
        return new Promise<RunSnapshot>((resolve, reject) => {
          pending.push(() => {
            const a = answer(runId);
            if (a instanceof ResumableError) reject(a);
            else resolve({ runId, threadId: a, status: 'running', lastOffset: 3, messages: [] });
          });
        });
      },
    },
    shared: { keepFresh: (s: RunSnapshot) => kept.push(s.runId) },
  } as unknown as RunSession;
  const release = () => {
    for (const go of pending.splice(0)) go();
  };
  const ask = async (runId: string, threadId = 't') => {
    const answer = knownRun(run, runId, threadId, 'tok', BACKOFF);
    release();
    return answer;
  };
  return { run, reads, readAt, kept, clock, ask, release, reset: () => (pending = []) };
}

describe('knownRun', () => {
  it('the session’s own run: true without a read', async () => {
    const k = knownOver(() => 't');
    expect(await k.ask('own')).toBe(true);
    expect(k.reads).toEqual([]);
  });

  it('one read per run however often it is announced; its snapshot kept for the join; another thread’s run is not known', async () => {
    const k = knownOver((runId) =>
      runId === 'elsewhere' ? 'other-thread' : runId === 'new' ? '' : 't',
    );
    expect(await Promise.all([k.ask('r1'), k.ask('r1'), k.ask('r1')])).toEqual([true, true, true]);
    // A snapshot before the run's first event names no thread yet: known.
    expect([await k.ask('elsewhere'), await k.ask('new'), await k.ask('elsewhere')]).toEqual([
      false,
      true,
      false,
    ]);
    expect(k.reads).toEqual(['r1', 'elsewhere', 'new']);
    expect(k.kept).toEqual(['r1', 'new']);
  });

  it('the server’s own no (404, 401, 403) is remembered; a failed read (network, 503) is asked again', async () => {
    const codes = new Map([
      ['gone', 'run_not_found'],
      ['auth', 'unauthorized'],
      ['denied', 'forbidden'],
      ['offline', 'network'],
      ['busy', 'store_unavailable'],
    ] as const);
    const k = knownOver(
      (runId) => new ResumableError(codes.get(runId as 'gone') ?? 'internal', 'no'),
    );
    for (const round of [1, 2]) {
      // The second round after the retry policy's delay (a failed check is kept that long).
      k.clock.now = (round - 1) * 60_000;
      for (const runId of codes.keys())
        expect([round, runId, await k.ask(runId)]).toEqual([round, runId, false]);
    }
    expect(k.reads).toEqual(['gone', 'auth', 'denied', 'offline', 'busy', 'offline', 'busy']);
    expect(k.kept).toEqual([]);
  });

  it(`at most ${MAX_IN_FLIGHT} reads in flight: announcements meanwhile are not known, without a read`, async () => {
    const k = knownOver(() => 't');
    const ids = Array.from({ length: MAX_IN_FLIGHT + 2 }, (_, i) => `r${i}`);
    const answers = ids.map((id) => knownRun(k.run, id, 't', 'tok'));
    expect(k.reads).toEqual(ids.slice(0, MAX_IN_FLIGHT));
    k.release();
    expect(await Promise.all(answers)).toEqual([...Array(MAX_IN_FLIGHT).fill(true), false, false]);
    // The bound is free again: the dropped one is asked now.
    expect(await k.ask(`r${MAX_IN_FLIGHT}`)).toBe(true);
    expect(k.reads).toEqual([...ids.slice(0, MAX_IN_FLIGHT), `r${MAX_IN_FLIGHT}`]);
  });

  it(`keeps ${MAX_KNOWN} answers: the oldest is asked again`, async () => {
    const k = knownOver(() => 't');
    // Spaced past the read budget's window: only the answers kept are tested here.
    const later = async (runId: string) => {
      k.clock.now += WINDOW_MS;
      return k.ask(runId);
    };
    for (let i = 0; i <= MAX_KNOWN; i++) expect(await later(`r${i}`)).toBe(true);
    expect(await later(`r${MAX_KNOWN}`)).toBe(true); // kept
    expect(await later('r1')).toBe(true); // kept
    expect(k.reads).toHaveLength(MAX_KNOWN + 1);
    expect(await later('r0')).toBe(true); // dropped for r16: read again
    expect(k.reads).toHaveLength(MAX_KNOWN + 2);
    expect(k.reads.at(-1)).toBe('r0');
  });

  it('a failed check (503, network) is kept for the retry policy’s delay, growing while it fails: a lead every 500 ms is not a read every 500 ms', async () => {
    const k = knownOver(
      (runId) => new ResumableError(runId === 'busy' ? 'store_unavailable' : 'network', 'no'),
    );
    for (const runId of ['busy', 'offline']) {
      for (let at = 0; at < 10_000; at += 500) {
        k.clock.now = (runId === 'busy' ? 0 : 100_000) + at;
        expect(await k.ask(runId)).toBe(false);
      }
    }
    // retryDelay(1..5): 500, 1000, 2000, 4000, 4000 after each failed read; 20 asks each.
    const times = [0, 500, 1500, 3500, 7500];
    expect(k.readAt).toEqual([...times, ...times.map((at) => 100_000 + at)]);
    expect(k.reads).toEqual([...Array(5).fill('busy'), ...Array(5).fill('offline')]);
  });

  it('a Retry-After sets the delay, clamped to the policy’s [minMs, maxMs]', async () => {
    const after = new Map([
      ['soon', 3],
      ['late', 3600],
      ['now', 0],
    ]);
    const k = knownOver(
      (runId) =>
        new ResumableError('too_many_requests', 'slow down', {
          status: 429,
          retryAfter: after.get(runId) as number,
        }),
    );
    for (const [i, runId] of ['soon', 'late', 'now'].entries()) {
      for (let at = 0; at < 10_000; at += 500) {
        k.clock.now = i * 100_000 + at;
        expect(await k.ask(runId)).toBe(false);
      }
    }
    expect(k.readAt).toEqual([
      ...[0, 3000, 6000, 9000],
      // 3600 s: the policy's 8 s at most.
      ...[100_000, 108_000],
      // 0 s: the policy's 100 ms at least, so each 500 ms lead reads again — until the
      // read budget is spent for the window.
      ...Array.from({ length: BUDGET }, (_, n) => 200_000 + n * 500),
    ]);
  });

  it(`ids that cycle past the ${MAX_KNOWN} answers kept cost at most ${BUDGET} reads per ${WINDOW_MS} ms`, async () => {
    const k = knownOver(() => 't');
    const answers: boolean[] = [];
    for (let i = 0; i < 40; i++) {
      k.clock.now = i * 100;
      answers.push(await k.ask(`r${i % (MAX_KNOWN + 4)}`));
    }
    expect(k.reads).toEqual(Array.from({ length: BUDGET }, (_, i) => `r${i}`));
    // The ones read are kept (r0–r7 again at 20–27); the others were not read, nor remembered.
    const round = [...Array(BUDGET).fill(true), ...Array(MAX_KNOWN + 4 - BUDGET).fill(false)];
    expect(answers).toEqual([...round, ...round]);
    // The next window: reads again (the ones not read are not remembered as unknown).
    k.clock.now = WINDOW_MS;
    expect(await k.ask('r12')).toBe(true);
    expect(k.reads).toHaveLength(BUDGET + 1);
  });
});
