import type { RunMessage } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { conversationOf, historyOf } from './messages.js';

const user = (id: string, content: string): RunMessage => ({ id, role: 'user', content });
const said = (id: string, content: string): RunMessage => ({ id, role: 'assistant', content });

describe('conversationOf', () => {
  it("groups each reply's messages into one assistant message; the current run last, under its id", () => {
    const messages = conversationOf({
      history: [
        user('u1', 'first'),
        said('a1', 'one'),
        said('a2', 'two'),
        user('u2', 'second'),
        // The current run's messages, already in the history: shown once, under the run.
        said('a3', 'thr'),
      ],
      prompt: user('u2', 'second'),
      run: { runId: 'run-2', messages: [said('a3', 'three')] },
    });
    expect(messages).toEqual([
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'first' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'text', text: 'one', state: 'done' },
          { type: 'text', text: 'two', state: 'done' },
        ],
      },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'second' }] },
      { id: 'run-2', role: 'assistant', parts: [{ type: 'text', text: 'three', state: 'done' }] },
    ]);
  });

  it('a group with nothing to show is no reply', () => {
    const messages = conversationOf({
      history: [{ id: 's1', role: 'system', content: 'be brief' }, user('u1', 'hi')],
      prompt: null,
      run: { runId: null, messages: [] },
    });
    expect(messages.map((m) => m.id)).toEqual(['u1']);
  });

  it('no run and no history: nothing', () => {
    expect(
      conversationOf({ history: [], prompt: null, run: { runId: null, messages: [] } }),
    ).toEqual([]);
  });
});

describe('historyOf', () => {
  const page = [user('u1', 'a'), null, said('a1', 'b'), { id: 7, role: 'user' }, user('u2', 'c')];

  it('keeps the newest `limit` entries that are messages; a limit of 0 or less keeps none (slice(-0) was the whole page)', () => {
    expect(historyOf(page, 3)).toEqual([said('a1', 'b'), user('u2', 'c')]);
    expect(historyOf(page, 50)).toEqual([user('u1', 'a'), said('a1', 'b'), user('u2', 'c')]);
    expect(historyOf(page, 0)).toEqual([]);
    expect(historyOf(page, -2)).toEqual([]);
  });
});
