import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { BrowserToolRunner } from './browser-tools.js';
import type { InterruptSession } from './interrupt-session.js';
import { createMemoryStorage } from './storage.js';

/** An interrupt session as the runner sees it, with one open `client_tool` interrupt. */
function sessionWith(toolName: string) {
  const calls: string[] = [];
  const store = createStore(() => ({
    hydrated: true,
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
    setExecution: (id: string, execution: string | null) =>
      void calls.push(`exec ${id} ${execution}`),
    resolve: async (id: string, payload: unknown) =>
      void calls.push(`resolve ${id} ${JSON.stringify(payload)}`),
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
});
