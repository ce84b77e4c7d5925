import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, prompt } from '../helpers.js';

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('POST /runs on a thread deleted while the request was read (55e19f1)', () => {
  /**
   * The route's thread read is handed to the thread guard and not read again; the commit
   * says a thread deleted since is refused by createRun. A thread made again under the same
   * id (another client, another token) was not: the run went into the new thread, and the
   * 201 carried the old thread's token. Since issue 26 the id cannot be made again (its
   * tombstone); the late POST still answers 404 and stores nothing.
   */
  it('answers 404 thread_not_found, and the id cannot be made again meanwhile', async () => {
    const store = new MemoryStore();
    let gate: Promise<void> | null = null;
    let open: () => void = () => {};
    let gated: string | null = null;
    const getThread = store.getThread.bind(store);
    store.getThread = async (threadId: string) => {
      const record = await getThread(threadId);
      if (gated === threadId && gate) {
        const wait = gate;
        gate = null;
        await wait;
      }
      return record;
    };
    const server = await startServer({ port: 0, store, log: () => {} });
    servers.push(server);
    const { json: a } = await postRun(server.url, prompt('mine', { tokens: 1 }));
    await server.manager.waitForRun(a.runId);
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    gated = a.threadId;
    // A's next prompt: its thread read waits at the gate, holding the record with A's token.
    const pending = postRun(
      server.url,
      { ...prompt('second', { tokens: 1 }, 'u2'), threadId: a.threadId },
      bearer(a.token),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const deleted = await fetch(`${server.url}/threads/${a.threadId}`, {
      method: 'DELETE',
      headers: bearer(a.token),
    });
    expect(deleted.status).toBe(204);
    // Someone else tries to make a thread under the same id (ids are the client's to
    // choose): since issue 26 a deleted thread's id is never a thread again.
    const again = await postRun(server.url, {
      ...prompt('theirs', { tokens: 1 }, 'b1'),
      threadId: a.threadId,
    });
    expect([again.status, again.json]).toEqual([
      404,
      { error: { code: 'thread_not_found', message: `thread ${a.threadId} was deleted` } },
    ]);
    open();
    const late = await pending;
    expect([
      late.status,
      (late.json.error as { code?: string } | undefined)?.code,
      await store.getThread(a.threadId),
      await store.getRun(late.json.runId ?? 'none'),
    ]).toEqual([404, 'thread_not_found', null, null]);
  });
});
