import { describe, expect, it } from 'vitest';
import { replyTokens } from '../src/testing.js';
import { expectedLog, expectedReply } from './expected.js';
import { bearer, CLUSTER_STORES, postRun, prompt, readEvents, waitFor } from './helpers.js';

import { FAST, SLOW, useHttpServer } from './http-server.js';

describe.each(CLUSTER_STORES)('HTTP runs endpoints on the $name store', ({ create }) => {
  const ctx = useHttpServer(create);

  it('POST /runs answers 201 {runId, threadId, token} with Location', async () => {
    const { status, json, headers } = await postRun(ctx.base, prompt('hi', FAST));
    expect(status).toBe(201);
    expect(Object.keys(json).sort()).toEqual(['runId', 'threadId', 'token']);
    expect(json.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(headers.get('location')).toBe(`/api/runs/${json.runId}`);
    await ctx.server.manager.waitForRun(json.runId);
  });

  it('GET /runs/:id/events replays the exact log, offsets 1..N, and ends after the terminal', async () => {
    const run = await ctx.finishedRun();
    const read = await readEvents(
      `${ctx.base}/runs/${run.runId}/events`,
      { headers: bearer(run.token) },
      Number.POSITIVE_INFINITY,
      true,
    );
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(read.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(read.frames.map((f) => f.offset)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(read.frames.map((f) => f.json)).toEqual(expectedLog(run, 'Explain offsets', 20));
    const wire = expectedLog(run, 'Explain offsets', 20)
      .map((json, i) => `id: ${i + 1}\ndata: ${json}\n\n`)
      .join('');
    expect(read.body).toBe(wire);
  });

  it('after= and Last-Event-ID select the resume point; after wins over the header', async () => {
    const run = await ctx.finishedRun();
    const log = expectedLog(run, 'Explain offsets', 20);
    const a = await readEvents(`${ctx.base}/runs/${run.runId}/events?after=20`, {
      headers: bearer(run.token),
    });
    expect(a.frames.map((f) => f.json)).toEqual(log.slice(20));
    expect(a.frames[0]!.offset).toBe(21);
    const b = await readEvents(`${ctx.base}/runs/${run.runId}/events`, {
      headers: { ...bearer(run.token), 'Last-Event-ID': '22' },
    });
    expect(b.frames.map((f) => f.offset)).toEqual([23, 24]);
    const c = await readEvents(`${ctx.base}/runs/${run.runId}/events?after=23`, {
      headers: { ...bearer(run.token), 'Last-Event-ID': '2' },
    });
    expect(c.frames.map((f) => f.offset)).toEqual([24]);
  });

  it('answers 204 when the run is over and nothing follows the resume point', async () => {
    const run = await ctx.finishedRun();
    const response = await fetch(`${ctx.base}/runs/${run.runId}/events?after=24`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('answers 409 offset_ahead past the last offset', async () => {
    const run = await ctx.finishedRun();
    const response = await fetch(`${ctx.base}/runs/${run.runId}/events?after=25`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: { code: 'offset_ahead', message: "after=25 is beyond the run's last offset 24" },
    });
  });

  it.each([
    ['abc', 'after must be a non-negative integer, got "abc"'],
    ['-1', 'after must be a non-negative integer, got "-1"'],
    ['1.5', 'after must be a non-negative integer, got "1.5"'],
    ['', 'after must be a non-negative integer, got ""'],
  ])('answers 400 bad_request for after=%j', async (after, message) => {
    const run = await ctx.finishedRun();
    const response = await fetch(`${ctx.base}/runs/${run.runId}/events?after=${after}`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'bad_request', message } });
  });

  it('answers 400 for a bad Last-Event-ID', async () => {
    const run = await ctx.finishedRun();
    const response = await fetch(`${ctx.base}/runs/${run.runId}/events`, {
      headers: { ...bearer(run.token), 'Last-Event-ID': 'x1' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 'bad_request',
        message: 'Last-Event-ID must be a non-negative integer, got "x1"',
      },
    });
  });

  it('GET /runs/:id answers the folded snapshot', async () => {
    const run = await ctx.finishedRun();
    const response = await fetch(`${ctx.base}/runs/${run.runId}`, { headers: bearer(run.token) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      runId: run.runId,
      threadId: run.threadId,
      status: 'finished',
      lastOffset: 24,
      outcome: { type: 'success' },
      messages: [
        {
          id: `msg-${run.runId}`,
          role: 'assistant',
          content: expectedReply('Explain offsets', 20),
        },
      ],
    });
  });

  it('GET /runs/:id of a running run folds what is stored so far', async () => {
    const { json: run } = await postRun(ctx.base, prompt('slow one', SLOW));
    await waitFor(async () => {
      const r = await fetch(`${ctx.base}/runs/${run.runId}`, { headers: bearer(run.token) });
      return ((await r.json()) as { lastOffset: number }).lastOffset >= 5;
    });
    const body = (await (
      await fetch(`${ctx.base}/runs/${run.runId}`, { headers: bearer(run.token) })
    ).json()) as {
      status: string;
      lastOffset: number;
      messages: Array<{ content: string; streaming?: boolean }>;
    };
    expect(body.status).toBe('running');
    expect(body.messages[0]!.streaming).toBe(true);
    // Offsets 1 and 2 are RUN_STARTED and TEXT_MESSAGE_START; the rest are deltas.
    expect(body.messages[0]!.content).toBe(
      replyTokens('slow one', 2000)
        .slice(0, body.lastOffset - 2)
        .join(''),
    );
    await fetch(`${ctx.base}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    await ctx.server.manager.waitForRun(run.runId);
  });

  it('401 without a token, 403 with a wrong one, ?token= works', async () => {
    const run = await ctx.finishedRun();
    const paths = [
      ['GET', `/runs/${run.runId}/events`],
      ['GET', `/runs/${run.runId}`],
      ['POST', `/runs/${run.runId}/cancel`],
      ['GET', `/threads/${run.threadId}`],
      ['GET', `/threads/${run.threadId}/messages`],
    ] as const;
    for (const [method, path] of paths) {
      const none = await fetch(`${ctx.base}${path}`, { method });
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({
        error: {
          code: 'unauthorized',
          message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
        },
      });
      const wrong = await fetch(`${ctx.base}${path}`, { method, headers: bearer('not-the-token') });
      expect(wrong.status).toBe(403);
      expect(await wrong.json()).toEqual({
        error: { code: 'forbidden', message: 'this token does not grant access to this thread' },
      });
    }
    const viaQuery = await fetch(`${ctx.base}/runs/${run.runId}?token=${run.token}`);
    expect(viaQuery.status).toBe(200);
    // A new run on an existing thread needs the thread's token too.
    const foreign = await postRun(ctx.base, { ...prompt('x', FAST), threadId: run.threadId });
    expect(foreign.status).toBe(401);
    const wrongThread = await postRun(
      ctx.base,
      { ...prompt('x', FAST), threadId: run.threadId },
      bearer('nope'),
    );
    expect(wrongThread.status).toBe(403);
  });

  it('404 run_not_found, thread_not_found and not_found', async () => {
    const a = await fetch(`${ctx.base}/runs/no-such-run-0000000/events`);
    expect(a.status).toBe(404);
    expect(await a.json()).toEqual({
      error: { code: 'run_not_found', message: 'no run no-such-run-0000000' },
    });
    const b = await fetch(`${ctx.base}/runs/no-such-run-0000000`);
    expect(b.status).toBe(404);
    const c = await fetch(`${ctx.base}/runs/no-such-run-0000000/cancel`, { method: 'POST' });
    expect(c.status).toBe(404);
    const d = await fetch(`${ctx.base}/threads/no-such-thread`);
    expect(d.status).toBe(404);
    expect(await d.json()).toEqual({
      error: { code: 'thread_not_found', message: 'no thread no-such-thread' },
    });
    const e = await fetch(`${ctx.base}/threads/no-such-thread/messages`);
    expect(e.status).toBe(404);
    const f = await fetch(`${ctx.base}/nothing-here`);
    expect(f.status).toBe(404);
    expect(await f.json()).toEqual({
      error: { code: 'not_found', message: 'no route GET /api/nothing-here' },
    });
  });

  it('cancel answers 202, ends the run with RUN_FINISHED cancelled, and is idempotent', async () => {
    const { json: run } = await postRun(ctx.base, prompt('cancel me', SLOW));
    const reading = readEvents(`${ctx.base}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    await waitFor(async () => ((await ctx.server.store.getRun(run.runId))?.lastOffset ?? 0) >= 4);
    const first = await fetch(`${ctx.base}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ runId: run.runId, cancelled: true });
    const read = await reading;
    const last = read.frames[read.frames.length - 1]!;
    expect(JSON.parse(last.json)).toEqual({
      type: 'RUN_FINISHED',
      threadId: run.threadId,
      runId: run.runId,
      outcome: { type: 'cancelled' },
    });
    expect(read.frames.map((f) => f.offset)).toEqual(
      Array.from({ length: read.frames.length }, (_, i) => i + 1),
    );
    const second = await fetch(`${ctx.base}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect(second.status).toBe(202);
    const status = await (
      await fetch(`${ctx.base}/runs/${run.runId}`, { headers: bearer(run.token) })
    ).json();
    expect(status).toMatchObject({ status: 'cancelled', lastOffset: last.offset });
    // Nothing after the terminal event, even though the agent was mid-reply.
    expect((await ctx.server.store.readEvents(run.runId, last.offset, 10)).length).toBe(0);
  });

  it('a repeated runId does not start a second run: 200 with the same JSON', async () => {
    const runId = crypto.randomUUID();
    const first = await postRun(ctx.base, { ...prompt('once', FAST), runId });
    expect(first.status).toBe(201);
    const again = await postRun(ctx.base, { ...prompt('once', FAST), runId });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const threeTimes = await postRun(ctx.base, {
      ...prompt('once', FAST),
      runId,
      threadId: first.json.threadId,
    });
    expect(threeTimes.json).toEqual(first.json);
    const runs = await (
      await fetch(`${ctx.base}/threads/${first.json.threadId}`, {
        headers: bearer(first.json.token),
      })
    ).json();
    expect((runs as { runs: unknown[] }).runs).toHaveLength(1);
    const otherThread = await postRun(ctx.base, {
      ...prompt('once', FAST),
      runId,
      threadId: 'other-thread',
    });
    expect(otherThread.status).toBe(400);
    expect(otherThread.json).toEqual({
      error: { code: 'bad_request', message: `runId ${runId} belongs to another thread` },
    });
  });

  it('two racing POSTs with the same runId start one run', async () => {
    const runId = crypto.randomUUID();
    const [a, b] = await Promise.all([
      postRun(ctx.base, { ...prompt('race', FAST), runId, threadId: `t-${runId}` }),
      postRun(ctx.base, { ...prompt('race', FAST), runId, threadId: `t-${runId}` }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.json).toEqual(b.json);
    await ctx.server.manager.waitForRun(runId);
    const log = await readEvents(`${ctx.base}/runs/${runId}/events`, {
      headers: bearer(a.json.token),
    });
    expect(log.frames.map((f) => f.json)).toEqual(expectedLog(a.json, 'race', 20));
  });
});
