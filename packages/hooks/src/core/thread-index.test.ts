import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/util.js';
import { MAX_LISTED_THREADS, ThreadIndex, type ThreadSource } from './thread-index.js';

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
