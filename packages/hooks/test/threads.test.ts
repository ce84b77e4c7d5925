/**
 * The thread index against the real server (memory store) on 127.0.0.1: new / rename /
 * delete with the exact lists, the server's answers, local records cleared, the bound.
 */
import { type RunningServer, startServer } from '@resumable/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryStorage, type RecordStorage } from '../src/core/records/storage.js';
import {
  localThreadSource,
  THREAD_INDEX_KEY,
  ThreadIndex,
  titleFromPrompt,
} from '../src/core/threads/thread-index.js';
import { createThread, deleteThread, renameThread } from '../src/threads/index.js';
import { waitFor } from './util.js';

let server: RunningServer;
let storage: RecordStorage;
let clock = 0;
let ids = 0;
const api = () => ({ endpoint: server.url });

function makeIndex(maxThreads?: number): ThreadIndex {
  const source = localThreadSource({
    endpoint: server.url,
    storage,
    ...(maxThreads ? { maxThreads } : {}),
  });
  return new ThreadIndex(source, { now: () => ++clock, randomUUID: () => `k${++ids}` }, null);
}

/** GET /threads/{id} as the server answers it. */
async function serverThread(threadId: string, token: string) {
  const response = await fetch(`${server.url}/threads/${threadId}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const list = (index: ThreadIndex) =>
  index.getState().threads.map((t) => [t.id, t.title, t.threadId !== null]);

beforeEach(async () => {
  server = await startServer({ port: 0, store: 'memory' });
  storage = createMemoryStorage();
  clock = 0;
  ids = 0;
});
afterEach(async () => {
  await server.close();
});

describe("the README's calls: createThread, renameThread, deleteThread with EndpointOptions", () => {
  it('make, rename and delete a thread on the server', async () => {
    const api = { endpoint: server.url };
    // As the README shows it.
    const { threadId, token } = await createThread(api);
    await renameThread(api, threadId, token, 'Trip to Rome');
    expect(await serverThread(threadId, token)).toMatchObject({
      status: 200,
      body: { threadId, title: 'Trip to Rome' },
    });
    await deleteThread(api, threadId, token);
    expect((await serverThread(threadId, token)).status).toBe(404);
    await expect(renameThread(api, threadId, 'not-the-token', 'x')).rejects.toMatchObject({
      code: 'thread_not_found',
    });
  });
});

describe('ThreadIndex with the local source and the real server', () => {
  it('new, touched with a server thread, renamed on the server, deleted everywhere', async () => {
    const index = makeIndex();
    await index.load();
    expect(index.getState()).toEqual({ threads: [], loaded: true, error: null });

    const a = await index.create();
    const b = await index.create();
    expect(list(index)).toEqual([
      ['k2', null, false],
      ['k1', null, false],
    ]);
    const ta = await createThread(api());
    const tb = await createThread(api());
    await index.touch(a, { threadId: ta.threadId, token: ta.token, title: 'Trip to Rome' });
    await index.touch(b, { threadId: tb.threadId, token: tb.token, title: 'Taxes' });
    // A title from the first prompt never replaces one already there.
    await index.touch(a, { title: 'Something else' });
    expect(list(index)).toEqual([
      ['k2', 'Taxes', true],
      ['k1', 'Trip to Rome', true],
    ]);
    // Activity moves a conversation to the top.
    await index.touch(a, { active: true });
    expect(list(index)).toEqual([
      ['k1', 'Trip to Rome', true],
      ['k2', 'Taxes', true],
    ]);

    await index.rename(a, '  Rome, May  ');
    expect(list(index)).toEqual([
      ['k1', 'Rome, May', true],
      ['k2', 'Taxes', true],
    ]);
    const renamed = await serverThread(ta.threadId, ta.token);
    expect([renamed.status, renamed.body.title]).toEqual([200, 'Rome, May']);

    // The chat records of b, as a chat session on key b would have left them.
    await storage.update(`chat:${b}`, () => ({ v: 1 }));
    await storage.update(`run:${b}`, () => ({ v: 1 }));
    await index.remove(b);
    expect(list(index)).toEqual([['k1', 'Rome, May', true]]);
    const gone = await serverThread(tb.threadId, tb.token);
    expect([gone.status, (gone.body.error as { code: string }).code]).toEqual([
      404,
      'thread_not_found',
    ]);
    expect(await storage.get(`chat:${b}`)).toBeUndefined();
    expect(await storage.get(`run:${b}`)).toBeUndefined();

    // A fresh index (a reload) reads the same list back.
    const again = makeIndex();
    await again.load();
    expect(list(again)).toEqual([['k1', 'Rome, May', true]]);
  });

  it('a rename the server refuses keeps the title and shows the typed error', async () => {
    const index = makeIndex();
    await index.load();
    const id = await index.create();
    const thread = await createThread(api());
    await index.touch(id, { threadId: thread.threadId, token: 'not-the-token', title: 'Mine' });
    await expect(index.rename(id, 'Theirs')).rejects.toMatchObject({ code: 'forbidden' });
    expect(index.getState().error?.code).toBe('forbidden');
    expect(list(index)).toEqual([['k1', 'Mine', true]]);
    await expect(index.remove(id)).rejects.toMatchObject({ code: 'forbidden' });
    expect(list(index)).toEqual([['k1', 'Mine', true]]);
  });

  it('deleting a conversation already gone from the server clears it here', async () => {
    const index = makeIndex();
    await index.load();
    const id = await index.create();
    const thread = await createThread(api());
    await index.touch(id, { threadId: thread.threadId, token: thread.token });
    const response = await fetch(`${server.url}/threads/${thread.threadId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${thread.token}` },
    });
    expect(response.status).toBe(204);
    await index.remove(id);
    expect(list(index)).toEqual([]);
    expect(index.getState().error).toBeNull();
  });

  it('keeps at most maxThreads, dropping the least recently active with its records', async () => {
    const index = makeIndex(2);
    await index.load();
    await index.create();
    await storage.update('chat:k1', () => ({ v: 1 }));
    await index.create();
    await index.create();
    const stored = (await storage.get(THREAD_INDEX_KEY)) as { entries: { id: string }[] };
    expect(stored.entries.map((e) => e.id)).toEqual(['k3', 'k2']);
    expect(await storage.get('chat:k1')).toBeUndefined();
  });

  it('another tab sees each change as it is made, without re-reading the storage', async () => {
    const source = localThreadSource({ endpoint: server.url, storage });
    const name = `threads-${Math.random()}`;
    const one = new ThreadIndex(
      source,
      { now: () => ++clock, randomUUID: () => `k${++ids}` },
      name,
    );
    // The other tab's storage is empty (as after a fall back to memory): only messages count.
    const other = new ThreadIndex(
      localThreadSource({ endpoint: server.url, storage: createMemoryStorage() }),
      { now: () => ++clock, randomUUID: () => `x${++ids}` },
      name,
    );
    await Promise.all([one.load(), other.load()]);
    const id = await one.create();
    await one.touch(id, { title: 'Shared' });
    await waitFor(() => other.getState().threads[0]?.title === 'Shared', 'the put seen');
    expect(list(other)).toEqual([['k1', 'Shared', false]]);
    await one.remove(id);
    await waitFor(() => other.getState().threads.length === 0, 'the removal seen');
    one.dispose();
    other.dispose();
  });

  it('titles come from the first line of the first prompt, at most 60 characters', () => {
    expect(titleFromPrompt('  Plan a trip\nto Rome in May')).toBe('Plan a trip');
    expect(titleFromPrompt('x'.repeat(61))).toBe(`${'x'.repeat(59)}…`);
    expect(titleFromPrompt('x'.repeat(60))).toBe('x'.repeat(60));
    expect(titleFromPrompt(' \n ')).toBeNull();
  });
});
