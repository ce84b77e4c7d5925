import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TabLocks } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import { threadRecordKey } from '../src/core/conversation/thread-follower.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { THREAD, ThreadServer, threadDevice } from './thread-server.js';
import { assistantText, waitFor } from './util.js';
import { LockManagerStandIn } from './web-locks.js';

/**
 * A device joining a run mid-answer hears of it twice: the snapshot join (`GET /threads/{id}`
 * names the running run, `GET /runs/{id}` is its snapshot) and the thread stream's
 * `run_started`. Whichever comes first, and whenever the tab's election ends, the run is
 * followed once, from the snapshot's offset — never replayed from 0.
 */

const TOKENS = 6;
/** RUN_STARTED, TEXT_MESSAGE_START and 3 deltas: the snapshot's `lastOffset`. */
const SNAPSHOT_OFFSET = 5;
let server: ThreadServer;
const clients: ResumableClient[] = [];

/** Web Locks whose requests wait for `gate`: the election ends when the test says. */
function gatedLocks(gate: Promise<void>): TabLocks {
  const real = new LockManagerStandIn().client();
  return { request: (name, options, cb) => gate.then(() => real.request(name, options, cb)) };
}

const device = (storage: RecordStorage, locks: TabLocks | null) =>
  threadDevice(server.url, clients, storage, locks);

/** A device that followed the thread before the run started: its stream replays run_started. */
async function storageBeforeTheRun(): Promise<RecordStorage> {
  const storage = createMemoryStorage();
  await storage.update(threadRecordKey('c'), () => ({
    v: 1,
    key: 'c',
    threadId: THREAD,
    offset: 0,
  }));
  return storage;
}

const threadOffset = async (storage: RecordStorage) =>
  ((await storage.get(threadRecordKey('c'))) as { offset?: number } | null)?.offset;

async function finishAndCheck(chat: ChatSession): Promise<void> {
  server.step('r1', TOKENS + 4);
  await waitFor(() => chat.run.getState().status === 'finished', 'the run ends');
  expect(server.eventsAfter('r1')).toEqual([SNAPSHOT_OFFSET]);
  expect(assistantText(chat.getState().messages)).toBe(FakeServer.fullText(TOKENS));
  expect(server.text('r1')).toBe(FakeServer.fullText(TOKENS));
}

beforeEach(async () => {
  server = await new ThreadServer().start();
  server.history = [{ id: 'u1', role: 'user', content: 'hi' }];
  server.startRun('r1', { tokens: TOKENS, messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
  server.step('r1', SNAPSHOT_OFFSET);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

describe('a device joining a run mid-answer', () => {
  it('the snapshot join first; the election and run_started while its snapshot loads', async () => {
    const storage = await storageBeforeTheRun();
    let elect = () => {};
    const snapshot = server.hold('/runs/r1');
    const chat = device(
      storage,
      gatedLocks(
        new Promise((r) => {
          elect = r;
        }),
      ),
    );
    await snapshot.arrived;
    // The tab becomes the leader: its thread stream opens and replays run_started.
    elect();
    await waitFor(
      () => server.requests.some((r) => r.path === `/threads/${THREAD}/events`),
      'thread stream',
    );
    await expect.poll(() => threadOffset(storage)).toBe(1);
    expect(server.eventsAfter('r1')).toEqual([]);
    snapshot.release();
    await waitFor(() => server.eventsAfter('r1').length > 0, 'the run followed');
    await finishAndCheck(chat);
  });

  it("run_started first; the snapshot join's answer while the run's snapshot loads", async () => {
    const storage = await storageBeforeTheRun();
    const thread = server.hold(`/threads/${THREAD}`);
    const snapshot = server.hold('/runs/r1');
    const chat = device(storage, null);
    await thread.arrived;
    // Only the thread stream's run_started can have asked for the snapshot.
    await snapshot.arrived;
    thread.release();
    await waitFor(
      () => server.requests.filter((r) => r.path === `/threads/${THREAD}`).length === 1,
      'the join asked',
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(server.eventsAfter('r1')).toEqual([]);
    snapshot.release();
    await waitFor(() => server.eventsAfter('r1').length > 0, 'the run followed');
    await finishAndCheck(chat);
    // One snapshot: the second hearing of the run joined the first.
    expect(server.requests.filter((r) => r.path === '/runs/r1')).toHaveLength(1);
  });
});
