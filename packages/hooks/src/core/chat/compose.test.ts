import type { RunMessage } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, OutboxItem } from '../conversation/state.js';
import { composeMessages } from './compose.js';
import { optimisticMessage } from './optimistic.js';

const m = (id: string, role: string, content: unknown, parentId?: string | null) =>
  ({ id, role, content, ...(parentId === undefined ? {} : { parentId }) }) as ChatMessage;

type Chat = Parameters<typeof composeMessages>[0];
const chat = (extra: Partial<Chat>): Chat => ({
  history: [],
  settled: [],
  prompt: null,
  sending: null,
  outbox: [],
  ...extra,
});
const compose = (c: Chat, run: RunMessage[] = [], runId: string | null = null) =>
  composeMessages(c, run, runId, (item, pending) => ({ ...optimisticMessage(item), pending }));

describe('composeMessages: each id once', () => {
  it('history and a settled run: the history place and parent, the settled content', () => {
    const history = [m('u1', 'user', 'hi', null), m('a1', 'assistant', 'Hel', 'u1')];
    const settled = [m('u1', 'user', 'hi'), m('a1', 'assistant', 'Hello there')];
    expect(compose(chat({ history, settled }))).toEqual([
      m('u1', 'user', 'hi', null),
      m('a1', 'assistant', 'Hello there', 'u1'),
    ]);
  });

  it('a settled run and the current run naming the same message: the run’s content', () => {
    const settled = [m('u2', 'user', 'again'), m('a2', 'assistant', 'Half', 'u1')];
    const run = [m('a2', 'assistant', 'Half and whole'), m('t2', 'tool', '42')] as RunMessage[];
    expect(compose(chat({ settled }), run, 'r2')).toEqual([
      m('u2', 'user', 'again'),
      m('a2', 'assistant', 'Half and whole', 'u1'),
      m('t2', 'tool', '42'),
    ]);
  });

  it('a continuation repeating the tool call it answers: one call, with the run, newest content', () => {
    const history = [
      m('p', 'user', 'delete it', null),
      m('asked', 'assistant', 'May I?', 'p'),
      m('call', 'assistant', 'calling', 'asked'),
    ];
    const settled = [m('asked', 'assistant', 'May I?'), m('call', 'assistant', 'calling')];
    const run = [
      m('call', 'assistant', 'called'),
      m('result', 'tool', 'deleted'),
      m('answer', 'assistant', 'Done.'),
    ] as RunMessage[];
    expect(compose(chat({ history, settled }), run, 'continuation')).toEqual([
      m('p', 'user', 'delete it', null),
      m('asked', 'assistant', 'May I?', 'p'),
      // The run's copy, at the run's place: the branch view hangs it after `asked`.
      m('call', 'assistant', 'called'),
      m('result', 'tool', 'deleted'),
      m('answer', 'assistant', 'Done.'),
    ]);
  });

  it('an outbox prompt its run confirmed: the run’s copy, not pending, under the prompt’s parent', () => {
    const item: OutboxItem = {
      runId: 'r3',
      messageId: 'u3',
      text: 'edited',
      createdAt: 1,
      parentMessageId: 'u0',
    };
    const run = [m('u3', 'user', 'edited'), m('a3', 'assistant', 'Yes')] as RunMessage[];
    const history = [m('u0', 'user', 'first', null)];
    const result = compose(chat({ history, outbox: [item], sending: item }), run, 'r3');
    expect(result).toEqual([
      m('u0', 'user', 'first', null),
      m('u3', 'user', 'edited', 'u0'),
      m('a3', 'assistant', 'Yes'),
    ]);
    // Nothing merged keeps its object; a merged one is the same object the next time.
    expect(result[0]).toBe(history[0]);
    expect(result[2]).toBe(run[1]);
    expect(compose(chat({ history, outbox: [item], sending: item }), run, 'r3')[1]).toBe(result[1]);
  });

  it('the prompt the run log does not echo, then its reply; queued prompts after them', () => {
    const prompt = { runId: 'r4', message: m('u4', 'user', 'hi') };
    const queued: OutboxItem = { runId: 'r5', messageId: 'u5', text: 'next', createdAt: 2 };
    const run = [m('a4', 'assistant', 'Hello')] as RunMessage[];
    expect(compose(chat({ prompt, outbox: [queued] }), run, 'r4')).toEqual([
      m('u4', 'user', 'hi'),
      m('a4', 'assistant', 'Hello'),
      { ...m('u5', 'user', 'next'), pending: 'queued' },
    ]);
  });
});
