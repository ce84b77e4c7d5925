import type { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/util.js';
import {
  MAX_ENTRY_ID_CHARS,
  MAX_LISTED_THREADS,
  MAX_TITLE_CHARS,
  MAX_TOKEN_CHARS,
} from '../base/defaults.js';
import { createMemoryStorage } from '../records/storage.js';
import {
  localThreadSource,
  THREAD_INDEX_KEY,
  ThreadIndex,
  type ThreadSource,
} from './thread-index.js';

const source: ThreadSource = {
  list: async () => [],
  put: async () => {},
  rename: async () => {},
  remove: async () => {},
};

describe('ThreadIndex: another tab’s messages', () => {
  it('puts of ever new ids keep the list within its bound (the newest kept)', async () => {
    const name = `threads-${Math.random()}`;
    const index = new ThreadIndex(source, { now: () => 0, randomUUID: () => 'x' }, name);
    await index.load();
    const other = new BroadcastChannel(name);
    const n = MAX_LISTED_THREADS + 50;
    for (let i = 1; i <= n; i++) {
      other.postMessage({
        type: 'put',
        entry: { id: `t${i}`, threadId: null, token: null, title: null, updatedAt: i },
      });
    }
    await waitFor(() => index.getState().threads.some((t) => t.id === `t${n}`), 'the last put');
    other.close();
    const threads = index.getState().threads;
    index.dispose();
    expect(threads.length).toBe(MAX_LISTED_THREADS);
    expect(threads[0]?.id).toBe(`t${n}`);
    expect(threads.at(-1)?.id).toBe(`t${n - MAX_LISTED_THREADS + 1}`);
  });
});

describe('ThreadIndex: another tab’s entries out of bounds', () => {
  it('are dropped with one warning: long or non-wire ids, long titles and tokens; entries at the bounds are kept', async () => {
    const name = `threads-${Math.random()}`;
    const warnings: ResumableError[] = [];
    const index = new ThreadIndex(source, { now: () => 0, randomUUID: () => 'x' }, name, (w) =>
      warnings.push(w),
    );
    await index.load();
    const entry = (id: string, patch: object = {}) => ({
      type: 'put',
      entry: { id, threadId: 'th-1', token: 'tk', title: 'Hi', updatedAt: 1, ...patch },
    });
    const other = new BroadcastChannel(name);
    for (const message of [
      entry('x'.repeat(MAX_ENTRY_ID_CHARS + 1)),
      entry(''),
      entry('a', { threadId: 'a b' }),
      entry('b', { threadId: 'x'.repeat(201) }),
      entry('c', { threadId: '..' }),
      entry('d', { title: '😀'.repeat(MAX_TITLE_CHARS + 1) }),
      entry('e', { title: 'x'.repeat(100_000) }),
      entry('f', { token: 't'.repeat(MAX_TOKEN_CHARS + 1) }),
      { type: 'remove', id: 'y'.repeat(MAX_ENTRY_ID_CHARS + 1) },
      // At the bounds: kept (an app's key may be any characters).
      entry('weekly report ✓', { title: '😀'.repeat(MAX_TITLE_CHARS), updatedAt: 3 }),
      entry('k'.repeat(MAX_ENTRY_ID_CHARS), {
        threadId: 'T'.repeat(200),
        token: 't'.repeat(MAX_TOKEN_CHARS),
        updatedAt: 2,
      }),
    ]) {
      other.postMessage(message);
    }
    await waitFor(() => index.getState().threads.length === 2, 'the two within bounds');
    await new Promise((r) => setTimeout(r, 50));
    other.close();
    const threads = index.getState().threads;
    index.dispose();
    expect(threads.map((t) => t.id)).toEqual(['weekly report ✓', 'k'.repeat(MAX_ENTRY_ID_CHARS)]);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        'bad_request',
        `another tab's thread list put was dropped: not an entry within bounds (ids, title ≤ ${MAX_TITLE_CHARS}); later ones are dropped without a warning`,
      ],
    ]);
  });
});

describe('ThreadIndex: a stored list of any size', () => {
  const entry = (i: number, id = `t${i}`) => ({
    id,
    threadId: null,
    token: null,
    title: null,
    updatedAt: i,
  });

  it('a record holding more than the bound, and an id twice: the newest kept, each id once', async () => {
    const storage = createMemoryStorage();
    const n = MAX_LISTED_THREADS + 500;
    // Oldest first, as no version writes it, and t1 again as the newest of all.
    const entries = [...Array.from({ length: n }, (_, i) => entry(i + 1)), entry(n + 1, 't1')];
    await storage.update(THREAD_INDEX_KEY, () => ({ v: 1, entries }));
    const local = localThreadSource({ endpoint: 'http://127.0.0.1:9/api', storage });
    const listed = await local.list();
    expect(listed.length).toBe(MAX_LISTED_THREADS);
    expect(listed.slice(0, 3).map((t) => t.id)).toEqual(['t1', `t${n}`, `t${n - 1}`]);
    expect(listed.at(-1)?.id).toBe(`t${n - MAX_LISTED_THREADS + 2}`);

    // An app's source answering that many is held to the same bound.
    const index = new ThreadIndex(
      { ...source, list: async () => entries },
      { now: () => 0, randomUUID: () => 'x' },
      null,
    );
    await index.load();
    expect(index.getState().threads.map((t) => t.id)).toEqual(listed.map((t) => t.id));
  });
});
