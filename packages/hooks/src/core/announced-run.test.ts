import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { DELETE_CHECKS, threadGone } from './announced-run.js';
import { parseTabMessage } from './chat-state.js';
import type { RunSession } from './session.js';

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
