import { describe, expect, it } from 'vitest';
import { parseTabMessage } from './chat-state.js';

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
