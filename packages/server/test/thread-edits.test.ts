import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/index.js';
import { bearer, postRun, prompt, STORES, serve, tempDir, waitFor } from './helpers.js';
import { FAST, SLOW, useHttpServer } from './http-server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(STORES)('thread rename and delete on the $name store', ({ create }) => {
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
      lastOffset: 2,
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
