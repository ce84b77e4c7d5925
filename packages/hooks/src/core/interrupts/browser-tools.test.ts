import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { createMemoryStorage } from '../records/storage.js';
import { BrowserToolRunner } from './browser-tools.js';
import { answerProblem } from './interrupt-record.js';
import type { InterruptSession } from './interrupt-session.js';

/** An interrupt session as the runner sees it, with one open `client_tool` interrupt. */
function sessionWith(toolName: string) {
  const calls: string[] = [];
  const store = createStore(() => ({
    hydrated: true,
    record: { answers: [] as { interruptId: string }[] },
    interrupts: [
      {
        id: 'i1',
        reason: 'client_tool',
        status: 'open',
        pending: null,
        tool: { name: toolName, arguments: '{}' },
      },
    ],
  }));
  const session = {
    store,
    getState: store.getState,
    chat: { run: { storage: createMemoryStorage(), key: 'k' } },
    markTool: async (id: string, state: string) => void calls.push(`mark ${id} ${state}`),
    warn: (error: { code: string }) => void calls.push(`warn ${error.code}`),
    setExecution: (id: string, execution: string | null) =>
      void calls.push(`exec ${id} ${execution}`),
    // As the session's: an answer the server would refuse is rejected where it enters.
    resolve: async (id: string, payload: unknown) => {
      const problem = answerProblem({ interruptId: id, status: 'resolved', payload });
      if (problem) throw problem;
      calls.push(`resolve ${id} ${JSON.stringify(payload)}`);
      store.setState({ record: { answers: [{ interruptId: id }] } });
    },
  };
  return { session: session as unknown as InterruptSession, calls };
}

describe('BrowserToolRunner', () => {
  it('a tool name is data: "constructor", "toString", "__proto__" name no tool the app declared', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const { session, calls } = sessionWith(name);
      const runner = new BrowserToolRunner(session, null);
      runner.setTools({ search: { execute: () => 'found' } });
      const stop = runner.start();
      await new Promise((r) => setTimeout(r, 20));
      stop();
      expect([name, calls]).toEqual([name, []]);
    }
  });

  it('a declared tool runs and answers', async () => {
    const { session, calls } = sessionWith('search');
    const runner = new BrowserToolRunner(session, null);
    runner.setTools({ search: { execute: () => 'found' } });
    const stop = runner.start();
    await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(calls).toEqual([
      'mark i1 started',
      'exec i1 running',
      'exec i1 null',
      'resolve i1 {"result":"found"}',
      'mark i1 done',
    ]);
  });

  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
  const refused: [string, () => unknown, string][] = [
    [
      '9,000 two-byte characters (under 16 K characters, over 16 KiB)',
      () => 'é'.repeat(9000),
      'the result is 18013 bytes of JSON, over the limit of 16384',
    ],
    ['nested 70 deep', () => nested(70), 'the result nests deeper than 61 levels'],
    ['a BigInt', () => 1n, 'the result is not JSON'],
  ];
  for (const [what, execute, error] of refused) {
    it(`a result the server would refuse (${what}) is answered as an error`, async () => {
      const { session, calls } = sessionWith('search');
      const runner = new BrowserToolRunner(session, null);
      runner.setTools({ search: { execute } });
      const stop = runner.start();
      await new Promise((r) => setTimeout(r, 20));
      stop();
      expect(calls.slice(3)).toEqual([`resolve i1 ${JSON.stringify({ error })}`, 'mark i1 done']);
    });
  }

  it('an answer refused at once (an interrupt id the server refuses) is a warning, not a rejection', async () => {
    const { session, calls } = sessionWith('search');
    (session as { resolve: unknown }).resolve = () =>
      Promise.reject(new ResumableError('bad_request', 'resume[0].interruptId must be…'));
    const runner = new BrowserToolRunner(session, null);
    runner.setTools({ search: { execute: () => 'found' } });
    const stop = runner.start();
    await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(calls).toEqual([
      'mark i1 started',
      'exec i1 running',
      'exec i1 null',
      'warn bad_request',
    ]);
  });
});
