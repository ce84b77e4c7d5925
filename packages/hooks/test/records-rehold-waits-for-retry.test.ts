/**
 * Holding a chat again (`ChatSession.activate`) while the retry policy waits out a failure
 * sends nothing: the policy's timer drains when its delay is up. A component that mounts
 * again during an outage does not POST around the policy (each such POST would count toward
 * `no_progress`). Real `ChatSession` against a `node:http` server on 127.0.0.1.
 */

import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../src/core/records/storage.js';
import {
  BOUND_MS,
  chatClient,
  fastBounds,
  hostileServerPerTest,
  server,
  stops,
} from './hostile-harness.js';
import { THREAD, TOKEN } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A thread chat whose retry policy waits `ms` after each failure. */
const waitingChat = (ms: number) =>
  chatClient(createMemoryStorage(), {
    ...fastBounds(2000),
    backoff: { initialMs: ms, minMs: ms, maxMs: ms },
  }).chatSession('c', { threadId: THREAD, token: TOKEN, followThread: false, shareTabs: false });

describe('a chat held again while a retry waits', () => {
  it('sends nothing before the policy delay (1 s here)', async () => {
    server.handler = (hit, _req, res) =>
      hit.route === 'start' && server.error(res, 503, 'store_unavailable');
    const chat = waitingChat(1000);
    let release = chat.retain();
    await waitFor(() => chat.getState().hydrated, 'read', BOUND_MS);
    void chat.send('hello');
    await waitFor(() => server.count('start') === 1, 'the first POST', BOUND_MS);
    const failedAt = Date.now();
    // Three remounts within the policy's 1 s wait.
    for (let i = 0; i < 3; i++) {
      await pause(60);
      release();
      await pause(20);
      release = chat.retain();
    }
    stops.push(release);
    await pause(100);
    expect(Date.now() - failedAt).toBeLessThan(900);
    expect(server.count('start')).toBe(1);
  });

  it('a retry whose delay ran out while let go goes out when the chat is held again', async () => {
    let up = false;
    server.handler = (hit, _req, res) =>
      hit.route === 'start' && !up && server.error(res, 503, 'store_unavailable');
    const chat = waitingChat(200);
    const release = chat.retain();
    await waitFor(() => chat.getState().hydrated, 'read', BOUND_MS);
    void chat.send('hello');
    await waitFor(() => server.count('start') === 1, 'the first POST', BOUND_MS);
    release();
    await pause(400); // the policy's 200 ms ran out while nothing held the chat
    expect(server.count('start')).toBe(1);
    up = true;
    stops.push(chat.retain());
    await waitFor(() => chat.getState().outbox.length === 0, 'sent on the re-hold', 300);
    expect(server.count('start')).toBe(2);
  });
});
