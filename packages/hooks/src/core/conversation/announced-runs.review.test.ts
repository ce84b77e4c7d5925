/**
 * Review (tabs coordination): what a hostile same-origin tab can do to `knownRun`'s answers. Each case drives `followAnnounced` as a tab's messages would (the real
 * leader's announcements every 500 ms, another tab's made-up ones) over a stand-in session
 * whose reads answer at once; the clock moves only when the test moves it.
 */
import type { RunSnapshot } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { BackoffOptions } from '../retry/backoff.js';
import type { AnnouncedHost } from './announced-runs.js';
import { followAnnounced } from './announced-runs.js';

const BACKOFF: BackoffOptions = { initialMs: 1000, maxMs: 8000, minMs: 100 };

/** Run `real` lives in thread `t`; every other id is made up (404) — until `fail` says otherwise. */
function chat(fail: (runId: string, at: number) => ResumableError | null = () => null) {
  const clock = { now: 0 };
  const reads: [string, number][] = [];
  const followed: [string, string, number][] = [];
  const run = {
    env: { now: () => clock.now, random: () => 0.5 },
    getState: () => ({ runId: null }),
    api: {
      getRun: async (runId: string): Promise<RunSnapshot> => {
        reads.push([runId, clock.now]);
        const failed = fail(runId, clock.now);
        if (failed) throw failed;
        if (runId !== 'real') throw new ResumableError('run_not_found', 'no such run');
        return { runId, threadId: 't', status: 'running', lastOffset: 3, messages: [] };
      },
    },
    shared: { keepFresh: () => {} },
  };
  const host = {
    run,
    store: { getState: () => ({ token: 'tk' }) },
    heard: ({ runId, threadId }: { runId: string; threadId: string }) => {
      followed.push([runId, threadId, clock.now]);
    },
  } as unknown as AnnouncedHost;
  const announce = async (runId: string, threadId: string) => {
    followAnnounced(host, { type: 'run', key: 'c', runId, threadId, token: 'tk' }, BACKOFF);
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { clock, reads, followed, announce };
}

describe('knownRun under a hostile tab (review)', () => {
  it('poisoning: answers are kept by run id alone — a made-up thread for the real run, asked after a failed read, leaves the real announcements unknown for good', async () => {
    // The server is busy at 0 (503, Retry-After 1): the real announcement's read fails and is
    // kept for 1 s; then the server answers again.
    const c = chat((_, at) =>
      at === 0
        ? new ResumableError('store_unavailable', 'busy', { status: 503, retryAfter: 1 })
        : null,
    );
    await c.announce('real', 't');
    // Another tab names the real run with a thread it is not in, the moment the kept failure
    // lapses: the server's answer (thread t, not "elsewhere") is kept as "not known" — keyed
    // by 'real' alone.
    c.clock.now = 1000;
    await c.announce('real', 'elsewhere');
    // The real leader's lead every 500 ms for 30 s more.
    for (let at = 1500; at <= 31_000; at += 500) {
      c.clock.now = at;
      await c.announce('real', 't');
    }
    // The kept answer is the thread the server named (t): followed at the next lead. It was
    // kept as "not known" by run id alone: never followed, never asked again.
    // Every lead after it is followed too: this stand-in chat never says it follows the run
    // (a real chat's machine drops a word of the run it follows). Two reads, no more.
    expect(c.followed[0]).toEqual(['real', 't', 1500]);
    expect(c.followed).toHaveLength(60);
    expect(c.reads).toEqual([
      ['real', 0],
      ['real', 1000],
    ]);
  });
});
