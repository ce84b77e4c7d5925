/**
 * The page's freeze and resume reach the tabs' leader election through the environment
 * (`env.onFreeze`), not the window: a frozen leader gives its lock up, another tab leads,
 * and back it queues as a follower. Two tabs in one process, a Web Locks stand-in, a real
 * BroadcastChannel; no network (a conversation not sent yet asks nothing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fastClient, waitFor } from '../../../test/util.js';
import { LockManagerStandIn } from '../../../test/web-locks.js';
import type { ResumableClient } from '../client/resumable-client.js';
import { createMemoryStorage } from '../records/storage.js';

const opened: ResumableClient[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.dispose()));
});

describe('freeze and resume through the environment', () => {
  it('a frozen leader lets go, the other tab leads; resumed, it follows; dispose leaves', async () => {
    const manager = new LockManagerStandIn();
    const storage = createMemoryStorage();
    const requests: string[] = [];
    const endpoint = `http://127.0.0.1:9/freeze-${Date.now()}`;
    const tab = () => {
      const listeners = new Set<(frozen: boolean) => void>();
      const client = fastClient(endpoint, storage, {
        locks: manager.client(),
        fetch: async (input) => {
          requests.push(String(input));
          throw new TypeError('no network in this test');
        },
        onFreeze(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      });
      opened.push(client);
      const chat = client.chatSession('c');
      chat.retain();
      const role = () => chat.run.shared.role;
      const setFrozen = (frozen: boolean) => {
        for (const listener of [...listeners]) listener(frozen);
      };
      return { client, role, setFrozen, listeners };
    };

    const a = tab();
    await waitFor(() => a.role() === 'leader', 'a leads');
    const b = tab();
    await waitFor(() => b.role() === 'follower', 'b follows');
    expect([a.listeners.size, b.listeners.size]).toEqual([1, 1]);

    a.setFrozen(true);
    expect(a.role()).toBe('pending'); // frozen: no streams, lock given up at once
    await waitFor(() => b.role() === 'leader', 'b leads once a is frozen', 1000);

    a.setFrozen(false);
    await waitFor(() => a.role() === 'follower', 'a, back, follows b', 1000);
    expect(b.role()).toBe('leader');
    expect(requests).toEqual([]);

    await a.client.dispose();
    expect(a.listeners.size).toBe(0);
    a.setFrozen(true); // a disposed tab hears nothing
    expect(b.role()).toBe('leader');
  });
});
