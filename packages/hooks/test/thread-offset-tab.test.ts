import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TabLocks } from '../src/core/env.js';
import type { RecordStorage } from '../src/core/storage.js';
import { createMemoryStorage } from '../src/core/storage.js';
import { threadRecordKey } from '../src/core/thread-stream.js';
import { fastClient, waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * A thread resume point that another tab pushed past the server's (a buggy tab, another
 * version, or a server that lost events it had sent): the 409 and the resync it costs are
 * paid once, not on every reload after — the resync stores the server's own point, even
 * when it is lower than the stored one. Real `@resumable/server`, real BroadcastChannel.
 */

let server: RunningServer;
const clients: { dispose(): Promise<void> }[] = [];

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

/** A tab's client whose fetches (paths without the endpoint) are logged in `log`. */
function tab(storage: RecordStorage, log: string[], locks: TabLocks | null = null) {
  const client = fastClient(server.url, storage, {
    locks,
    fetch: (input, init) => {
      log.push(String(input).slice(server.url.length));
      return fetch(input, init);
    },
  });
  clients.push(client);
  return client;
}

describe('a thread resume point moved ahead by another tab', () => {
  it('after the 409 and one resync, a reload resumes from the server’s point: no 409 again', async () => {
    // A thread with one finished run: its stream's last offset is 2.
    const first = tab(createMemoryStorage(), []).chatSession('c', {
      runInput: { forwardedProps: { script: { tokens: 3, tokensPerSecond: 200, seed: 1 } } },
    });
    first.retain();
    await first.send('hello');
    await waitFor(() => first.run.getState().status === 'finished', 'first run', 10_000);
    const { threadId, token } = first.getState();
    const thread = `/threads/${threadId}`;
    const threadPaths = (log: string[]) => log.filter((p) => p.startsWith(thread));

    const storage = createMemoryStorage();
    const manager = new LockManagerStandIn();
    const [logA, logB] = [[] as string[], [] as string[]];
    const locksA = manager.client();
    const a = tab(storage, logA, locksA).chatSession('c', { threadId: threadId!, token: token! });
    a.retain();
    await waitFor(() => a.run.shared.role === 'leader', 'a leads');
    await waitFor(() => threadPaths(logA).includes(`${thread}/events?after=2`), 'a follows');
    const b = tab(storage, logB, manager.client()).chatSession('c', {
      threadId: threadId!,
      token: token!,
    });
    b.retain();
    await waitFor(() => b.run.shared.role === 'follower', 'b follows');

    // Another tab's thread batch, far past the server: the follower b takes it.
    const evil = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    evil.postMessage({
      v: 1,
      t: 'thread',
      tab: 'evil',
      key: 'c',
      threadId,
      envelopes: [{ offset: 1000, event: { type: 'CUSTOM', name: 'x.other', value: {} } }],
    });
    evil.close();
    await new Promise((r) => setTimeout(r, 100));

    // a dies: b leads from its own point (1000), gets 409, resyncs to the server's 2.
    locksA.kill();
    await clients[1]!.dispose();
    await waitFor(() => b.run.shared.role === 'leader', 'b leads');
    await waitFor(
      () => threadPaths(logB).includes(`${thread}/events?after=2`),
      `b resynced: ${JSON.stringify(logB)}`,
    );
    expect(threadPaths(logB).filter((p) => p.includes('/events'))).toEqual([
      `${thread}/events?after=1000`,
      `${thread}/events?after=2`,
    ]);
    expect(await storage.get(threadRecordKey('c'))).toEqual({
      v: 1,
      key: 'c',
      threadId,
      offset: 2,
    });
    await clients[2]!.dispose();

    // A reload on the same storage: straight from 2, no 409, no resync.
    const logC: string[] = [];
    // The page opens the thread as before (its id and token from the URL).
    const reloaded = tab(storage, logC).chatSession('c', { threadId: threadId!, token: token! });
    reloaded.retain();
    await waitFor(
      () => threadPaths(logC).some((p) => p.includes('/events')),
      `reload follows ${JSON.stringify(logC)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    // The history page and the chat's own open (`GET /threads/{id}`: a run to join?), then
    // the thread stream from the stored point — one stream, no 409's resync.
    expect(logC).toEqual([`${thread}/messages?limit=50`, thread, `${thread}/events?after=2`]);
  });
});
