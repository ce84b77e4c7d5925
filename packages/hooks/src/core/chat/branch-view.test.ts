import { describe, expect, it } from 'vitest';
import type { ChatMessage, OutboxItem } from '../conversation/state.js';
import { BranchCache, type BranchSources, visibleBranch } from './branch-view.js';

const msg = (id: string, role: 'user' | 'assistant', extra: Partial<ChatMessage> = {}) =>
  ({ id, role, content: id, ...extra }) as ChatMessage;

function sources(extra: Partial<BranchSources>): BranchSources {
  return {
    all: [],
    history: [],
    hasOlder: false,
    runIds: new Set(),
    regenerated: null,
    runId: null,
    runFirstId: null,
    outbox: [],
    through: null,
    ...extra,
  };
}

/** A run that continues an approval (its first message `tools`) folding beside the history. */
const continuation = (all: ChatMessage[], history: ChatMessage[], runIds: string[]) =>
  sources({ all, history, runIds: new Set(runIds), runId: 'continuation', runFirstId: 'tools' });

/** The view of a branch with no siblings anywhere: each id once, no "n/m". */
const single = (...ids: string[]) => ids.map((id) => [id, '']);

const view = (s: BranchSources, cache = new BranchCache()) =>
  visibleBranch(s, cache).map((m) => [
    m.id,
    m.branch ? `${m.branch.index + 1}/${m.branch.count}` : '',
  ]);

describe('visibleBranch', () => {
  const p = msg('p', 'user', { parentId: null });
  const a1 = msg('a1', 'assistant', { parentId: 'p' });
  const a2 = msg('a2', 'assistant', { parentId: 'p' });

  it('the newest branch, with the siblings made here counted beside the server’s', () => {
    const history = [p, { ...a1, branch: { index: 0, count: 2, siblingIds: ['a1', 'ax'] } }];
    const s = sources({ all: [...history, a2], history });
    expect(view(s)).toEqual([
      ['p', ''],
      ['a2', '3/3'],
    ]);
  });

  it('pinned (`through`): that branch, and a run from elsewhere with no parent is not on it', () => {
    const elsewhere = msg('other', 'assistant');
    const s = sources({
      all: [p, a1, a2, elsewhere],
      history: [p, a1],
      through: 'a1',
      runIds: new Set(['other']),
      runId: 'r',
      runFirstId: 'other',
    });
    expect(view(s)).toEqual([
      ['p', ''],
      ['a1', '1/2'],
    ]);
  });

  it('a message named again (history, a settled run, a continuation) is one node, newest content', () => {
    const asked = msg('asked', 'assistant', { parentId: 'p' });
    const tools = msg('tools', 'assistant');
    const result = msg('result', 'assistant');
    const newer = msg('result', 'assistant', { content: 'result, as the continuation folded it' });
    const answer = msg('answer', 'assistant');
    const s = continuation(
      [p, asked, tools, result, asked, tools, result, tools, newer, answer],
      [p, asked, tools, result],
      ['tools', 'result', 'answer'],
    );
    expect(view(s)).toEqual(single('p', 'asked', 'tools', 'result', 'answer'));
    expect(visibleBranch(s, new BranchCache())[3]?.content).toBe(
      'result, as the continuation folded it',
    );
  });

  it('a settled copy placed by guess before the server’s copy takes the server’s parent: no loop', () => {
    // After a reload the settled run (no parents) comes before the history page's copies
    // (with parents); the user prompt, placed after it, would otherwise close a loop.
    const asked = msg('asked', 'assistant');
    const tools = msg('tools', 'assistant');
    const answer = msg('answer', 'assistant');
    const askedUnderP = { ...asked, parentId: 'p' } as ChatMessage;
    const s = continuation(
      [asked, tools, p, askedUnderP, { ...tools, parentId: 'asked' } as ChatMessage, tools, answer],
      [p, askedUnderP],
      ['tools', 'answer'],
    );
    expect(view(s)).toEqual(single('p', 'asked', 'tools', 'answer'));
  });

  it('a regenerate waiting in the outbox ends the branch at its prompt', () => {
    const item: OutboxItem = {
      runId: 'r2',
      text: '',
      createdAt: 0,
      kind: 'regenerate',
      parentMessageId: 'p',
    };
    expect(view(sources({ all: [p, a1], history: [p, a1], outbox: [item] }))).toEqual([['p', '']]);
  });

  it('a regenerated answer (no prompt of its own) hangs under the prompt it answers', () => {
    const answer = msg('a3', 'assistant');
    const s = sources({
      all: [p, a1, answer],
      history: [p, a1],
      regenerated: { runId: 'r3', parentId: 'p' },
      runId: 'r3',
      runFirstId: 'a3',
      runIds: new Set(['a3']),
    });
    expect(view(s)).toEqual([
      ['p', ''],
      ['a3', '2/2'],
    ]);
  });

  it('a branch from the wire that is not one is ignored; objects keep their identity', () => {
    const hostile = [
      { ...p, branch: { index: 0, count: 5, siblingIds: [1, 2] } },
      { ...a1, branch: { index: 0, count: 1, siblingIds: ['a1'] } },
    ] as unknown as ChatMessage[];
    const cache = new BranchCache();
    const s = sources({ all: hostile, history: hostile });
    expect(view(s, cache)).toEqual([
      ['p', ''],
      ['a1', ''],
    ]);
    const first = visibleBranch(s, cache);
    const second = visibleBranch(s, cache);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });
});
