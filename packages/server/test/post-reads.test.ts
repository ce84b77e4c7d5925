import { EventType } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type Agent, MemoryStore, startServer } from '../src/index.js';
import { bearer, postRun, prompt } from './helpers.js';

/**
 * `POST /runs` reads the run record at most once: the HTTP layer looks up a client-chosen
 * `runId` (an idempotent retry), and the manager relies on the store's atomic `createRun`
 * instead of reading it again. At the concurrency limit a retry is still answered.
 */
describe('POST /runs store reads', () => {
  const store = new MemoryStore();
  let getRunCalls = 0;
  const getRun = store.getRun.bind(store);
  store.getRun = (runId: string) => {
    getRunCalls++;
    return getRun(runId);
  };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const agent: Agent = async function* () {
    await gate;
    yield { type: EventType.RUN_FINISHED, threadId: '', runId: '' };
  };
  const serving = startServer({ port: 0, store, agent, limits: { maxConcurrentRuns: 1 } });
  afterAll(async () => {
    release();
    await (await serving).close();
  });

  it('reads the record once with a client runId, never without one; retries at the limit', async () => {
    const server = await serving;
    const runId = 'post-reads-run-00000001';
    getRunCalls = 0;
    const first = await postRun(server.url, { ...prompt('hi'), runId });
    expect(first.status).toBe(201);
    expect(getRunCalls).toBe(1);

    // The retry of the same POST: answered from the record, 200, same ids.
    getRunCalls = 0;
    const retry = await postRun(server.url, { ...prompt('hi'), runId });
    expect(retry.status).toBe(200);
    expect(retry.json).toEqual({
      runId,
      threadId: first.json.threadId,
      token: first.json.token,
    });
    expect(getRunCalls).toBe(1);

    // The manager at its limit (1 run) still answers a retry with the existing run.
    getRunCalls = 0;
    const direct = await server.manager.startRun({
      threadId: first.json.threadId,
      runId,
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    expect([direct.created, direct.run.runId, direct.run.status]).toEqual([
      false,
      runId,
      'running',
    ]);
    expect(getRunCalls).toBe(1);

    // A new run in a new thread at the limit, with no runId of its own (so it cannot be a
    // retry): refused with 429 before any read, and before its thread is stored.
    getRunCalls = 0;
    const busy = await postRun(server.url, prompt('more'));
    expect(busy.status).toBe(429);
    expect(getRunCalls).toBe(0);

    release();
    await server.manager.waitForRun(runId);
    getRunCalls = 0;
    const fresh = await postRun(server.url, prompt('new'));
    expect(fresh.status).toBe(201);
    expect(getRunCalls).toBe(0);
  });
});

/**
 * `POST /runs` on an existing thread reads the thread once (the route's read is handed to
 * the thread guard) and its history once (the tree the run is placed in also tells
 * whether the thread is full), as the runs that follow need.
 */
describe('POST /runs on an existing thread: thread and history reads', () => {
  const store = new MemoryStore();
  const calls = { getThread: 0, listMessages: 0 };
  const getThread = store.getThread.bind(store);
  const listMessages = store.listMessages.bind(store);
  store.getThread = (threadId) => {
    calls.getThread++;
    return getThread(threadId);
  };
  store.listMessages = (threadId, before, limit) => {
    calls.listMessages++;
    return listMessages(threadId, before, limit);
  };
  const serving = startServer({ port: 0, store, log: () => {} });
  afterAll(async () => (await serving).close());

  it('reads the thread once and one page of history', async () => {
    const server = await serving;
    const { json: first } = await postRun(server.url, prompt('hi', { tokens: 1 }));
    await server.manager.waitForRun(first.runId);
    calls.getThread = 0;
    calls.listMessages = 0;
    const second = await postRun(
      server.url,
      // Slow: its end (which reads the history to store its answer) is not counted.
      { ...prompt('again', { tokens: 50, tokensPerSecond: 10 }, 'u2'), threadId: first.threadId },
      bearer(first.token),
    );
    expect(second.status).toBe(201);
    // Before: 2 and 2 (the thread guard read the thread again; admission read a page of
    // history to learn its length before the tree read it whole).
    expect(calls).toEqual({ getThread: 1, listMessages: 1 });
    await server.manager.cancel(second.json.runId);
    await server.manager.waitForRun(second.json.runId);
  });
});
