/**
 * A hidden leader the browser throttles (Chrome runs a hidden page's timers about once a
 * minute) posts its heartbeat rarely, yet leads: its streams' reads are not timers. A
 * visible follower that hears little from it does not take the lock for that alone — it
 * asks the server first (`leader-watch.ts`); with nothing to ask (no run, no thread yet)
 * only `LEADER_SILENT_MS` of silence lets it steal. Two tabs in one process, a Web Locks
 * stand-in, a real BroadcastChannel; no network.
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

/** The throttled leader's timers: none fires before this (its heartbeat is every 500 ms). */
const THROTTLED_MS = 2000;

describe('a hidden leader whose timers the browser throttles', () => {
  it('keeps the lock: a visible follower that heard nothing for leaderStaleMs does not steal it, and asks nothing', async () => {
    const manager = new LockManagerStandIn();
    const storage = createMemoryStorage();
    const requests: string[] = [];
    const endpoint = `http://127.0.0.1:9/throttled-${Date.now()}`;
    const tab = (throttled: boolean) => {
      const client = fastClient(endpoint, storage, {
        locks: manager.client(),
        fetch: async (input) => {
          requests.push(String(input));
          throw new TypeError('no network in this test');
        },
        ...(throttled
          ? {
              setTimeout: (fn: () => void, ms: number): unknown =>
                setTimeout(fn, Math.max(ms, THROTTLED_MS)),
            }
          : {}),
      });
      opened.push(client);
      const chat = client.chatSession('c', { leaderStaleMs: 300 });
      chat.retain();
      return () => chat.run.shared.role;
    };
    const a = tab(true);
    await waitFor(() => a() === 'leader', 'a leads');
    const b = tab(false);
    await waitFor(() => b() === 'follower', 'b follows');
    // b's heartbeat ticks every 500 ms; a is heard at b's hello, then once per 2 s at most.
    await new Promise((r) => setTimeout(r, 2 * THROTTLED_MS + 500));
    expect([a(), b()]).toEqual(['leader', 'follower']);
    expect(requests).toEqual([]);
  });
});
