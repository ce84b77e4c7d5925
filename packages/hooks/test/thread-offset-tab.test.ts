import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { threadRecordKey } from '../src/core/conversation/thread-follower.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { tabClients } from './tab-clients.js';
import { waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * A thread resume point that another tab pushed past the server's (a buggy tab, another
 * version, or a server that lost events it had sent): the 409 and the resync it costs are
 * paid once, not on every reload after — the resync stores the server's own point, even
 * when it is lower than the stored one. Real `@resumable/server`, real BroadcastChannel.
 */

let server: RunningServer;

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

const { clients, tab, threadWithOneRun } = tabClients(() => server.url);

/** A page reload on `storage`: it opens the thread as before (id and token from the URL). */
async function expectCleanReload(storage: RecordStorage, threadId: string, token: string) {
  const thread = `/threads/${threadId}`;
  const log: string[] = [];
  const reloaded = tab(storage, log).chatSession('c', { threadId, token });
  reloaded.retain();
  await waitFor(() => log.some((p) => p.includes('/events')), `reload follows ${log}`);
  await new Promise((r) => setTimeout(r, 200));
  // The history page and the chat's own open (`GET /threads/{id}`: a run to join?), then
  // the thread stream from the stored point — one stream, no 409's resync.
  expect(log).toEqual([`${thread}/messages?limit=50`, thread, `${thread}/events?after=2`]);
}

describe('a thread resume point ahead of the server', () => {
  it('another tab’s batch moves a follower ahead: it is never stored; the 409 is paid once, a reload starts clean', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const threadPaths = (log: string[]) => log.filter((p) => p.startsWith(thread));
    const stored = () => storage.get(threadRecordKey('c'));
    const storage = createMemoryStorage();
    const manager = new LockManagerStandIn();
    const [logA, logB] = [[] as string[], [] as string[]];
    const locksA = manager.client();
    const a = tab(storage, logA, locksA).chatSession('c', { threadId, token });
    a.retain();
    await waitFor(() => a.run.shared.role === 'leader', 'a leads');
    await waitFor(() => threadPaths(logA).includes(`${thread}/events?after=2`), 'a follows');
    const b = tab(storage, logB, manager.client()).chatSession('c', { threadId, token });
    b.retain();
    await waitFor(() => b.run.shared.role === 'follower', 'b follows');

    // Another tab's thread batch, far past the server but continuing b's point (made-up
    // events 3…400): the follower b takes it (nothing tells it apart from the leader's).
    const evil = new BroadcastChannel(`resumable-tabs:${server.url}:c`);
    evil.postMessage({
      v: 1,
      t: 'thread',
      tab: 'evil',
      key: 'c',
      threadId,
      envelopes: Array.from({ length: 398 }, (_, i) => ({
        offset: 3 + i,
        event: { type: 'CUSTOM', name: 'x.other', value: {} },
      })),
    });
    evil.close();
    await new Promise((r) => setTimeout(r, 100));

    // a dies: b leads from its own point (400) — not stored: no server confirmed it —,
    // gets 409 and resyncs to the server's 2.
    locksA.kill();
    await clients[1]!.dispose();
    await waitFor(() => b.run.shared.role === 'leader', 'b leads');
    await waitFor(() => threadPaths(logB).includes(`${thread}/events?after=400`), 'b resumes');
    const record = { v: 1, key: 'c', threadId, offset: 2 };
    expect(await stored()).toEqual(record);
    await waitFor(
      () => threadPaths(logB).includes(`${thread}/events?after=2`),
      `b resynced: ${JSON.stringify(logB)}`,
    );
    expect(threadPaths(logB).filter((p) => p.includes('/events'))).toEqual([
      `${thread}/events?after=400`,
      `${thread}/events?after=2`,
    ]);
    expect(await stored()).toEqual(record);
    await clients[2]!.dispose();
    await expectCleanReload(storage, threadId, token);
  });

  it('a stored point past the server (events a dying server never stored): the resync stores the server’s lower point', async () => {
    const { threadId, token, thread } = await threadWithOneRun();
    const storage = createMemoryStorage();
    await storage.update(threadRecordKey('c'), () => ({ v: 1, key: 'c', threadId, offset: 1000 }));
    const log: string[] = [];
    const chat = tab(storage, log).chatSession('c', { threadId, token });
    chat.retain();
    await waitFor(() => log.includes(`${thread}/events?after=2`), `resynced: ${log}`);
    expect(log.filter((p) => p.includes('/events'))).toEqual([
      `${thread}/events?after=1000`,
      `${thread}/events?after=2`,
    ]);
    await clients[1]!.dispose();
    expect(await storage.get(threadRecordKey('c'))).toEqual({
      v: 1,
      key: 'c',
      threadId,
      offset: 2,
    });
    await expectCleanReload(storage, threadId, token);
  });
});
