import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatRecordKey } from '../src/core/chat/chat-record.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import type { ResumableClient } from '../src/core/client/resumable-client.js';
import { threadRecordKey } from '../src/core/conversation/thread-follower.js';
import { runRecordKey } from '../src/core/records/run-record.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import { FakeServer } from './fake-server.js';
import { THREAD, ThreadServer, threadDevice } from './thread-server.js';
import { waitFor } from './util.js';

/**
 * What a device following a thread does with what the thread stream says besides "a run
 * started": the thread deleted elsewhere ends the chat with `thread_not_found`; a run
 * started elsewhere under a `parentMessageId` lands on its branch (a regenerate as a sibling
 * answer, an edit as a sibling prompt), not after what is shown.
 */

let server: ThreadServer;
const clients: ResumableClient[] = [];
const u1 = { id: 'u1', role: 'user', content: 'hi', parentId: null } as const;
const a1 = {
  id: 'a-r1',
  role: 'assistant',
  content: FakeServer.fullText(2),
  parentId: 'u1',
} as const;

const device = (storage: RecordStorage) => threadDevice(server.url, clients, storage, null);

/** The branch shown: id, and ‹ n / m › where it has siblings. */
const shown = (chat: ChatSession) =>
  chat
    .getState()
    .messages.map((m) => `${m.id}${m.branch ? ` ${m.branch.index + 1}/${m.branch.count}` : ''}`);

/** A device showing the thread's first exchange, following its thread stream. */
async function following(storage = createMemoryStorage()): Promise<ChatSession> {
  server.startRun('r1', { tokens: 2, messages: [u1] });
  server.step('r1', 10);
  server.history = [u1, a1];
  const chat = device(storage);
  await waitFor(() => shown(chat).join() === 'u1,a-r1', 'the first exchange');
  await waitFor(
    () => server.requests.some((r) => r.path === `/threads/${THREAD}/events`),
    'the thread stream',
  );
  return chat;
}

beforeEach(async () => {
  server = await new ThreadServer().start();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  await server.close();
});

describe('what the thread stream says', () => {
  it('a regenerate made on another device shows as a sibling answer, not appended', async () => {
    const chat = await following();
    server.startRun('r2', { tokens: 3, messages: [], parentMessageId: 'u1' });
    server.step('r2', 3);
    await waitFor(() => chat.run.getState().runId === 'r2', 'the regenerate followed');
    await waitFor(() => shown(chat).join() === 'u1,a-r2 2/2', `sibling: ${shown(chat)}`);
    // Its end: the server's page of the new branch.
    server.history = [
      u1,
      {
        id: 'a-r2',
        role: 'assistant',
        content: FakeServer.fullText(3),
        parentId: 'u1',
        branch: { index: 1, count: 2, siblingIds: ['a-r1', 'a-r2'] },
      } as never,
    ];
    server.step('r2', 10);
    await waitFor(() => chat.run.getState().status === 'finished', 'the regenerate ends');
    await waitFor(() => chat.getState().history.some((m) => m.id === 'a-r2'), 'the page reloaded');
    expect(shown(chat)).toEqual(['u1', 'a-r2 2/2']);
    expect(chat.getState().messages[1]!.content).toBe(FakeServer.fullText(3));
  });

  it('an edit made on another device shows as a sibling prompt with its answer', async () => {
    const chat = await following();
    const edited = { id: 'u1b', role: 'user' as const, content: 'hello' };
    server.startRun('r3', { tokens: 2, messages: [edited], parentMessageId: null });
    server.step('r3', 3);
    await waitFor(() => chat.run.getState().runId === 'r3', 'the edit followed');
    await waitFor(() => shown(chat).join() === 'u1b 2/2,a-r3', `sibling: ${shown(chat)}`);
  });

  it('the thread deleted elsewhere mid-answer: the run stopped, the records cleared, thread_not_found', async () => {
    const storage = createMemoryStorage();
    const chat = await following(storage);
    server.startRun('r4', { tokens: 20, messages: [{ id: 'u4', role: 'user', content: 'more' }] });
    server.step('r4', 4);
    await waitFor(() => chat.run.getState().messages.length > 0, 'the run followed');
    server.deleteThread();
    await waitFor(() => chat.getState().error !== null, 'the chat ends');
    const requestsBefore = server.requests.length;
    expect(chat.getState().error?.code).toBe('thread_not_found');
    expect(chat.getState()).toMatchObject({ threadId: null, messages: [], outbox: [] });
    expect(chat.run.getState()).toMatchObject({ runId: null, threadId: null });
    for (const key of [chatRecordKey('c'), runRecordKey('c'), threadRecordKey('c')]) {
      await expect.poll(() => storage.get(key)).toBeUndefined();
    }
    // Nothing asked of the deleted thread or its run once the chat ended.
    await new Promise((r) => setTimeout(r, 150));
    expect(server.requests.slice(requestsBefore)).toEqual([]);
  });
});
