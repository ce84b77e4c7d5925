import type { Message, RunAgentInput } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../stores/memory/memory-store.js';
import { historyMessage } from '../stores/stored-messages.js';
import { planBranch } from './history.js';

const input = (messages: Message[]): RunAgentInput => ({
  threadId: 't1',
  runId: 'r3',
  messages,
  tools: [],
  context: [],
  state: null,
  forwardedProps: {},
});

describe('history end marks', () => {
  it('history keeps a stopped or failed end and drops the run-local streaming flag', () => {
    const folded = (extra: Record<string, unknown>) =>
      ({ id: 'a1', role: 'assistant', content: 'par', ...extra }) as Message;
    expect(historyMessage(folded({ streaming: true }))).toEqual({
      id: 'a1',
      role: 'assistant',
      content: 'par',
    });
    expect(historyMessage(folded({ ended: 'stopped' }))).toEqual({
      id: 'a1',
      role: 'assistant',
      content: 'par',
      ended: 'stopped',
    });
    expect(historyMessage(folded({ ended: 'error' }))).toEqual({
      id: 'a1',
      role: 'assistant',
      content: 'par',
      ended: 'error',
    });
    // Anything else is not an end mark the protocol knows.
    expect(historyMessage(folded({ ended: 'later' }))).toEqual({
      id: 'a1',
      role: 'assistant',
      content: 'par',
    });
  });

  it('the agent is given the stored history without tree positions or end marks', async () => {
    const store = new MemoryStore();
    await store.createThread({ threadId: 't1', token: 'x', createdAt: 1 });
    await store.putMessages('t1', 'r1', [
      { id: 'u1', role: 'user', content: 'hi', parentId: null } as Message,
      {
        id: 'a1',
        role: 'assistant',
        content: 'par',
        parentId: 'u1',
        ended: 'stopped',
      } as Message,
    ]);
    const plan = await planBranch(
      store,
      input([{ id: 'u2', role: 'user', content: 'go on' }]),
      undefined,
      20,
    );
    expect(plan.history).toEqual([
      { id: 'u1', role: 'user', content: 'hi' },
      { id: 'a1', role: 'assistant', content: 'par' },
    ]);
    expect(plan.parentId).toBe('a1');
  });

  it('a prompt cannot bring its own end mark: the server stores it without one', async () => {
    const store = new MemoryStore();
    await store.createThread({ threadId: 't1', token: 'x', createdAt: 1 });
    const plan = await planBranch(
      store,
      input([
        { id: 'u1', role: 'user', content: 'hi', ended: 'stopped', streaming: true } as Message,
      ]),
      undefined,
      20,
    );
    expect(plan.prompt).toEqual([{ id: 'u1', role: 'user', content: 'hi', parentId: null }]);
  });
});
