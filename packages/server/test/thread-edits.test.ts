import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { type EventStore, MemoryStore, RedisStore, SqliteStore } from '../src/index.js';
import {
  bearer,
  CLUSTER_STORES,
  postRun,
  prompt,
  readEvents,
  serve,
  tempDir,
  waitFor,
} from './helpers.js';
import { FAST, SLOW, useHttpServer } from './http-server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(CLUSTER_STORES)('thread rename and delete on the $name store', ({ create }) => {
  const ctx = useHttpServer(create);
  const call = async (method: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${ctx.base}${path}`, { method, ...init });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text && JSON.parse(text) };
  };
  const json = (body: unknown, token?: string) => ({
    headers: { 'Content-Type': 'application/json', ...(token ? bearer(token) : {}) },
    body: JSON.stringify(body),
  });

  it('POST /threads makes an empty thread; PATCH renames it with its token only', async () => {
    const made = await call('POST', '/threads', json({ title: 'Trip' }));
    expect(made.status).toBe(201);
    const { threadId, token } = made.body;
    expect(made.body).toEqual({
      threadId,
      token,
      title: 'Trip',
      createdAt: expect.stringMatching(ISO),
      updatedAt: made.body.createdAt,
      runs: [],
      lastOffset: 0,
      waiting: false,
      interrupts: [],
    });
    const run = await postRun(ctx.base, { ...prompt('hi', FAST), threadId }, bearer(token));
    expect(run.status).toBe(201);
    const { runId } = run.json;
    await ctx.server.manager.waitForRun(runId);
    // Its run_started and run_ended are on the thread stream before the rename.
    await waitFor(async () => (await ctx.server.manager.threads.head(threadId)).last === 2);
    const stored = (await ctx.server.store.getRun(runId))!;

    const renamed = await call('PATCH', `/threads/${threadId}`, json({ title: '  Paris ' }, token));
    expect(renamed.status).toBe(200);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(renamed.body).toEqual({
      threadId,
      title: 'Paris',
      createdAt: made.body.createdAt,
      updatedAt: expect.stringMatching(ISO),
      runs: [
        {
          runId,
          status: 'finished',
          lastOffset: stored.lastOffset,
          createdAt: iso(stored.createdAt),
          endedAt: iso(stored.endedAt!),
        },
      ],
      // 3: the rename's history_changed, announced before the answer.
      lastOffset: 3,
      waiting: false,
      interrupts: [],
    });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(stored.endedAt!);
    const read = await call('GET', `/threads/${threadId}`, { headers: bearer(token) });
    expect(read.body).toEqual(renamed.body);

    const tooLong = 'x'.repeat(201);
    const titleError = {
      code: 'bad_request',
      message: 'title must be a string of 1 to 200 characters, without control characters',
    };
    for (const title of ['   ', tooLong, 'a\nb', 7]) {
      expect(await call('PATCH', `/threads/${threadId}`, json({ title }, token))).toMatchObject({
        status: 400,
        body: { error: titleError },
      });
    }
    expect(await call('PATCH', `/threads/${threadId}`, json({ title: 'x' }))).toMatchObject({
      status: 401,
      body: { error: { code: 'unauthorized' } },
    });
    expect(await call('PATCH', `/threads/${threadId}`, json({ title: 'x' }, 'nope'))).toMatchObject(
      {
        status: 403,
        body: { error: { code: 'forbidden' } },
      },
    );
    const head = await call('HEAD', `/threads/${threadId}`);
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET, PATCH, DELETE']);
    const put = await call('PUT', `/threads/${threadId}`, json({}, token));
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, PATCH, DELETE']);
  });

  it('a client following the thread sees the rename and the delete, then its stream closes; nothing of the thread is left', async () => {
    const { threadId, token, runId } = await ctx.finishedRun('one');
    const { manager, store } = ctx.server;
    await waitFor(async () => (await manager.threads.head(threadId)).last === 2);
    const interruptId = `${runId}/ask-1`;
    const answer = { interruptId, runId: 'answering-run', status: 'resolved' as const };
    expect(
      await store.interrupts.claim(threadId, 'answering-run', [{ ...answer, answeredAt: 1 }]),
    ).toBeNull();
    const following = readEvents(`${ctx.base}/threads/${threadId}/events?after=2`, {
      headers: bearer(token),
    });
    await waitFor(() => manager.threads.streams.count(threadId) === 1);

    const renamed = await call('PATCH', `/threads/${threadId}`, json({ title: 'Paris' }, token));
    expect([renamed.status, renamed.body.lastOffset]).toEqual([200, 3]);
    const deleted = await call('DELETE', `/threads/${threadId}`, { headers: bearer(token) });
    expect(deleted.status).toBe(204);
    const read = await following;
    const changed = (value: unknown) =>
      JSON.stringify({ type: 'CUSTOM', name: 'resumable.history_changed', value });
    expect(read.frames).toEqual([
      { offset: 3, json: changed({ reason: 'renamed', title: 'Paris' }) },
      { offset: 4, json: changed({ reason: 'deleted' }) },
    ]);
    expect(manager.threads.streams.count(threadId)).toBe(0);

    // Nothing of the thread is left: no thread events, no interrupt answers…
    expect(await leftovers(store, threadId, [interruptId])).toEqual({ events: 0, answers: 0 });
    expect(await store.threadLog!.head(threadId)).toEqual({ first: 0, last: 0 });
    expect(await store.threadLog!.read(threadId, 0, 10)).toEqual([]);
    expect(await store.interrupts.get(threadId, [interruptId])).toEqual([]);
    // …and its id is never a thread again (its tombstone, issue 26).
    expect(await store.createThread({ threadId, token: 'new', createdAt: 2 })).toBe(false);
    expect(await store.getThread(threadId)).toBe(null);
  });

  it('DELETE cancels the running run, then everything on the thread is gone', async () => {
    const first = await ctx.finishedRun('one');
    const { threadId, token } = first;
    const running = await postRun(
      ctx.base,
      { ...prompt('two', SLOW, 'u2'), threadId },
      bearer(token),
    );
    expect(running.status).toBe(201);

    expect(await call('DELETE', `/threads/${threadId}`, { headers: bearer('nope') })).toMatchObject(
      {
        status: 403,
      },
    );
    const deleted = await call('DELETE', `/threads/${threadId}`, { headers: bearer(token) });
    expect(deleted).toMatchObject({ status: 204, body: '' });
    expect(ctx.server.manager.activeRunCount).toBe(0);

    const noThread = { error: { code: 'thread_not_found', message: `no thread ${threadId}` } };
    const auth = { headers: bearer(token) };
    for (const path of [`/threads/${threadId}`, `/threads/${threadId}/messages`]) {
      expect(await call('GET', path, auth)).toEqual({
        status: 404,
        headers: expect.anything(),
        body: noThread,
      });
    }
    expect((await call('PATCH', `/threads/${threadId}`, json({ title: 'x' }, token))).body).toEqual(
      noThread,
    );
    expect((await call('DELETE', `/threads/${threadId}`, auth)).body).toEqual(noThread);
    for (const runId of [first.runId, running.json.runId]) {
      const noRun = { error: { code: 'run_not_found', message: `no run ${runId}` } };
      expect((await call('GET', `/runs/${runId}`, auth)).body).toEqual(noRun);
      expect((await call('GET', `/runs/${runId}/events`, auth)).body).toEqual(noRun);
      expect(await ctx.server.store.readEvents(runId, 0, 10)).toEqual([]);
    }
    expect(await ctx.server.store.listMessages(threadId, null, 10)).toEqual({
      messages: [],
      nextBefore: null,
    });
  });
});

describe('POST /threads', () => {
  it('counts against the client address rate like a run start (429 past it)', async () => {
    const dir = tempDir();
    const server = await serve(() => new MemoryStore(), dir.path, {
      limits: { maxRunsPerMinutePerAddress: 2 },
    });
    try {
      const make = () =>
        fetch(`${server.url}/threads`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        });
      expect((await make()).status).toBe(201);
      expect((await make()).status).toBe(201);
      const refused = await make();
      expect([refused.status, refused.headers.get('retry-after'), await refused.json()]).toEqual([
        429,
        // The window's oldest start leaves it in 60 s (59 on a machine slower than 1 s here).
        expect.stringMatching(/^(59|60)$/),
        {
          error: {
            code: 'too_many_requests',
            message: 'this client started 2 runs or threads in the last minute, its limit',
          },
        },
      ]);
    } finally {
      await server.close();
      dir.cleanup();
    }
  });
});

/** The thread's events and interrupt answers as the store holds them (its rows, its keys). */
async function leftovers(store: EventStore, threadId: string, interruptIds: string[]) {
  if (store instanceof SqliteStore) {
    const db = new Database(store.path);
    try {
      const count = (table: string) =>
        (
          db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE thread_id = ?`).get(threadId) as {
            n: number;
          }
        ).n;
      return { events: count('thread_events'), answers: count('interrupt_answers') };
    } finally {
      db.close();
    }
  }
  if (store instanceof RedisStore) {
    const exists = (key: string) => store.call('test', (c) => c.exists(key));
    return {
      events: await exists(store.keys.threadEvents(threadId)),
      answers: await exists(store.keys.interrupts(threadId)),
    };
  }
  const { last } = await store.threadLog!.head(threadId);
  return { events: last, answers: (await store.interrupts.get(threadId, interruptIds)).length };
}
