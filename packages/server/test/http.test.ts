import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, replyTokens } from '../src/index.js';
import { expectedLog, expectedReply } from './expected.js';
import {
  bearer,
  postRun,
  prompt,
  readEvents,
  STORES,
  type Started,
  serve,
  tempDir,
  types,
  waitFor,
} from './helpers.js';

const FAST = { tokens: 20, tokensPerSecond: 0 };
const SLOW = { tokens: 2000, tokensPerSecond: 50 };

describe.each(STORES)('HTTP endpoints on the $name store', ({ create }) => {
  const dir = tempDir();
  let server: RunningServer;
  let base: string;

  beforeAll(async () => {
    server = await serve(create, dir.path, {
      limits: { maxBodyBytes: 4096 },
      cors: { origins: ['https://app.example'] },
    });
    base = server.url;
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  async function finishedRun(text = 'Explain offsets', script = FAST): Promise<Started> {
    const { status, json } = await postRun(base, prompt(text, script));
    expect(status).toBe(201);
    await server.manager.waitForRun(json.runId);
    return json;
  }

  it('POST /runs answers 201 {runId, threadId, token} with Location', async () => {
    const { status, json, headers } = await postRun(base, prompt('hi', FAST));
    expect(status).toBe(201);
    expect(Object.keys(json).sort()).toEqual(['runId', 'threadId', 'token']);
    expect(json.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(json.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(headers.get('location')).toBe(`/api/runs/${json.runId}`);
    await server.manager.waitForRun(json.runId);
  });

  it('GET /runs/:id/events replays the exact log, offsets 1..N, and ends after the terminal', async () => {
    const run = await finishedRun();
    const read = await readEvents(
      `${base}/runs/${run.runId}/events`,
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
    const run = await finishedRun();
    const log = expectedLog(run, 'Explain offsets', 20);
    const a = await readEvents(`${base}/runs/${run.runId}/events?after=20`, {
      headers: bearer(run.token),
    });
    expect(a.frames.map((f) => f.json)).toEqual(log.slice(20));
    expect(a.frames[0]!.offset).toBe(21);
    const b = await readEvents(`${base}/runs/${run.runId}/events`, {
      headers: { ...bearer(run.token), 'Last-Event-ID': '22' },
    });
    expect(b.frames.map((f) => f.offset)).toEqual([23, 24]);
    const c = await readEvents(`${base}/runs/${run.runId}/events?after=23`, {
      headers: { ...bearer(run.token), 'Last-Event-ID': '2' },
    });
    expect(c.frames.map((f) => f.offset)).toEqual([24]);
  });

  it('answers 204 when the run is over and nothing follows the resume point', async () => {
    const run = await finishedRun();
    const response = await fetch(`${base}/runs/${run.runId}/events?after=24`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('answers 409 offset_ahead past the last offset', async () => {
    const run = await finishedRun();
    const response = await fetch(`${base}/runs/${run.runId}/events?after=25`, {
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
    const run = await finishedRun();
    const response = await fetch(`${base}/runs/${run.runId}/events?after=${after}`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'bad_request', message } });
  });

  it('answers 400 for a bad Last-Event-ID', async () => {
    const run = await finishedRun();
    const response = await fetch(`${base}/runs/${run.runId}/events`, {
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
    const run = await finishedRun();
    const response = await fetch(`${base}/runs/${run.runId}`, { headers: bearer(run.token) });
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
    const { json: run } = await postRun(base, prompt('slow one', SLOW));
    await waitFor(async () => {
      const r = await fetch(`${base}/runs/${run.runId}`, { headers: bearer(run.token) });
      return ((await r.json()) as { lastOffset: number }).lastOffset >= 5;
    });
    const body = (await (
      await fetch(`${base}/runs/${run.runId}`, { headers: bearer(run.token) })
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
    await fetch(`${base}/runs/${run.runId}/cancel`, { method: 'POST', headers: bearer(run.token) });
    await server.manager.waitForRun(run.runId);
  });

  it('401 without a token, 403 with a wrong one, ?token= works', async () => {
    const run = await finishedRun();
    const paths = [
      ['GET', `/runs/${run.runId}/events`],
      ['GET', `/runs/${run.runId}`],
      ['POST', `/runs/${run.runId}/cancel`],
      ['GET', `/threads/${run.threadId}`],
      ['GET', `/threads/${run.threadId}/messages`],
    ] as const;
    for (const [method, path] of paths) {
      const none = await fetch(`${base}${path}`, { method });
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({
        error: {
          code: 'unauthorized',
          message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
        },
      });
      const wrong = await fetch(`${base}${path}`, { method, headers: bearer('not-the-token') });
      expect(wrong.status).toBe(403);
      expect(await wrong.json()).toEqual({
        error: { code: 'forbidden', message: 'this token does not grant access to this thread' },
      });
    }
    const viaQuery = await fetch(`${base}/runs/${run.runId}?token=${run.token}`);
    expect(viaQuery.status).toBe(200);
    // A new run on an existing thread needs the thread's token too.
    const foreign = await postRun(base, { ...prompt('x', FAST), threadId: run.threadId });
    expect(foreign.status).toBe(401);
    const wrongThread = await postRun(
      base,
      { ...prompt('x', FAST), threadId: run.threadId },
      bearer('nope'),
    );
    expect(wrongThread.status).toBe(403);
  });

  it('404 run_not_found, thread_not_found and not_found', async () => {
    const a = await fetch(`${base}/runs/no-such-run-0000000/events`);
    expect(a.status).toBe(404);
    expect(await a.json()).toEqual({
      error: { code: 'run_not_found', message: 'no run no-such-run-0000000' },
    });
    const b = await fetch(`${base}/runs/no-such-run-0000000`);
    expect(b.status).toBe(404);
    const c = await fetch(`${base}/runs/no-such-run-0000000/cancel`, { method: 'POST' });
    expect(c.status).toBe(404);
    const d = await fetch(`${base}/threads/no-such-thread`);
    expect(d.status).toBe(404);
    expect(await d.json()).toEqual({
      error: { code: 'thread_not_found', message: 'no thread no-such-thread' },
    });
    const e = await fetch(`${base}/threads/no-such-thread/messages`);
    expect(e.status).toBe(404);
    const f = await fetch(`${base}/nothing-here`);
    expect(f.status).toBe(404);
    expect(await f.json()).toEqual({
      error: { code: 'not_found', message: 'no route GET /api/nothing-here' },
    });
  });

  it('cancel answers 202, ends the run with RUN_FINISHED cancelled, and is idempotent', async () => {
    const { json: run } = await postRun(base, prompt('cancel me', SLOW));
    const reading = readEvents(`${base}/runs/${run.runId}/events`, { headers: bearer(run.token) });
    await waitFor(async () => ((await server.store.getRun(run.runId))?.lastOffset ?? 0) >= 4);
    const first = await fetch(`${base}/runs/${run.runId}/cancel`, {
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
    const second = await fetch(`${base}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect(second.status).toBe(202);
    const status = await (
      await fetch(`${base}/runs/${run.runId}`, { headers: bearer(run.token) })
    ).json();
    expect(status).toMatchObject({ status: 'cancelled', lastOffset: last.offset });
    // Nothing after the terminal event, even though the agent was mid-reply.
    expect((await server.store.readEvents(run.runId, last.offset, 10)).length).toBe(0);
  });

  it('a repeated runId does not start a second run: 200 with the same JSON', async () => {
    const runId = crypto.randomUUID();
    const first = await postRun(base, { ...prompt('once', FAST), runId });
    expect(first.status).toBe(201);
    const again = await postRun(base, { ...prompt('once', FAST), runId });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const threeTimes = await postRun(base, {
      ...prompt('once', FAST),
      runId,
      threadId: first.json.threadId,
    });
    expect(threeTimes.json).toEqual(first.json);
    const runs = await (
      await fetch(`${base}/threads/${first.json.threadId}`, { headers: bearer(first.json.token) })
    ).json();
    expect((runs as { runs: unknown[] }).runs).toHaveLength(1);
    const otherThread = await postRun(base, {
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
      postRun(base, { ...prompt('race', FAST), runId, threadId: `t-${runId}` }),
      postRun(base, { ...prompt('race', FAST), runId, threadId: `t-${runId}` }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.json).toEqual(b.json);
    await server.manager.waitForRun(runId);
    const log = await readEvents(`${base}/runs/${runId}/events`, { headers: bearer(a.json.token) });
    expect(log.frames.map((f) => f.json)).toEqual(expectedLog(a.json, 'race', 20));
  });

  it.each([
    ['{"messages": [', 'the body is not valid JSON'],
    ['[]', 'the body must be a JSON object (an AG-UI RunAgentInput)'],
    ['{}', 'messages must be an array of AG-UI messages'],
    ['{"messages": "hi"}', 'messages must be an array of AG-UI messages'],
    ['{"messages": [{"role": "user", "content": "x"}]}', 'messages[0].id must be a string'],
    [
      '{"messages": [{"id": "m", "role": "robot", "content": "x"}]}',
      'messages[0].role must be one of user, assistant, system, developer, tool, activity, reasoning',
    ],
    [
      '{"messages": [{"id": "m", "role": "user", "content": 5}]}',
      'messages[0].content must be a string or an array of parts',
    ],
    [
      '{"messages": [], "threadId": 7}',
      'threadId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..',
    ],
    [
      '{"messages": [], "runId": "short-id"}',
      'runId must be unguessable: at least 22 characters with 122 random bits (use a random UUID)',
    ],
    [
      '{"messages": [], "runId": "has spaces in it ok?"}',
      'runId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..',
    ],
    ['{"messages": [], "tools": {}}', 'tools must be an array'],
    ['{"messages": [], "forwardedProps": [1]}', 'forwardedProps must be an object'],
  ])('POST /runs %s answers 400', async (body, message) => {
    const response = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 'bad_request', message } });
  });

  it('POST /runs over the body limit answers 413 and starts nothing', async () => {
    const before = server.manager.activeRunCount;
    const big = JSON.stringify(prompt('x'.repeat(5000), FAST));
    const response = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: big,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        code: 'payload_too_large',
        message: 'the request body is over the limit of 4096 bytes',
      },
    });
    // Also when the size is not announced (chunked upload).
    const chunked = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(big));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(server.manager.activeRunCount).toBe(before);
  });

  it('a failing agent ends the run with RUN_ERROR agent_failed', async () => {
    const run = await finishedRun('fail please', {
      tokens: 20,
      tokensPerSecond: 0,
      failAt: 5,
    } as never);
    const read = await readEvents(`${base}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(types(read.frames)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      ...Array(5).fill('TEXT_MESSAGE_CONTENT'),
      'RUN_ERROR',
    ]);
    expect(JSON.parse(read.frames[7]!.json)).toEqual({
      type: 'RUN_ERROR',
      message: 'scripted failure after 5 tokens',
      code: 'agent_failed',
    });
    const status = await (
      await fetch(`${base}/runs/${run.runId}`, { headers: bearer(run.token) })
    ).json();
    expect(status).toMatchObject({
      status: 'error',
      error: { message: 'scripted failure after 5 tokens', code: 'agent_failed' },
    });
  });

  it('GET /threads/:id lists runs newest first with status; messages page with before/limit', async () => {
    const first = await finishedRun('first question');
    const headers = bearer(first.token);
    const second = await postRun(
      base,
      { ...prompt('second question', FAST, 'u2'), threadId: first.threadId },
      headers,
    );
    expect(second.status).toBe(201);
    expect(second.json.token).toBe(first.token);
    await server.manager.waitForRun(second.json.runId);
    const third = await postRun(
      base,
      { ...prompt('third', SLOW, 'u3'), threadId: first.threadId },
      headers,
    );
    const thread = (await (
      await fetch(`${base}/threads/${first.threadId}`, { headers })
    ).json()) as {
      threadId: string;
      runs: Array<{ runId: string; status: string; lastOffset: number }>;
    };
    expect(thread.threadId).toBe(first.threadId);
    expect(thread.runs.map((r) => [r.runId, r.status])).toEqual([
      [third.json.runId, 'running'],
      [second.json.runId, 'finished'],
      [first.runId, 'finished'],
    ]);
    await fetch(`${base}/runs/${third.json.runId}/cancel`, { method: 'POST', headers });
    await server.manager.waitForRun(third.json.runId);

    const all = (await (
      await fetch(`${base}/threads/${first.threadId}/messages`, { headers })
    ).json()) as { messages: Array<{ id: string; role: string }>; nextBefore: number | null };
    expect(all.messages.map((m) => `${m.role}:${m.id}`)).toEqual([
      'user:u1',
      `assistant:msg-${first.runId}`,
      'user:u2',
      `assistant:msg-${second.json.runId}`,
      'user:u3',
      `assistant:msg-${third.json.runId}`,
    ]);
    expect(all.nextBefore).toBeNull();
    const page1 = (await (
      await fetch(`${base}/threads/${first.threadId}/messages?limit=4`, { headers })
    ).json()) as { messages: Array<{ id: string }>; nextBefore: number };
    expect(page1.messages.map((m) => m.id)).toEqual([
      'u2',
      `msg-${second.json.runId}`,
      'u3',
      `msg-${third.json.runId}`,
    ]);
    expect(page1.nextBefore).toEqual(expect.any(Number));
    const page2 = (await (
      await fetch(`${base}/threads/${first.threadId}/messages?limit=4&before=${page1.nextBefore}`, {
        headers,
      })
    ).json()) as { messages: Array<{ id: string }>; nextBefore: number | null };
    expect(page2.messages.map((m) => m.id)).toEqual(['u1', `msg-${first.runId}`]);
    expect(page2.nextBefore).toBeNull();
    const badLimit = await fetch(`${base}/threads/${first.threadId}/messages?limit=0`, { headers });
    expect(badLimit.status).toBe(400);
    expect(await badLimit.json()).toEqual({
      error: { code: 'bad_request', message: 'limit must be an integer from 1 to 200' },
    });
    const badBefore = await fetch(`${base}/threads/${first.threadId}/messages?before=x`, {
      headers,
    });
    expect(badBefore.status).toBe(400);
    expect(await badBefore.json()).toEqual({
      error: { code: 'bad_request', message: 'before must be a cursor from nextBefore, got "x"' },
    });
    // A cancelled reply is history too, cut where it stopped.
    const stopped = (await (
      await fetch(`${base}/runs/${third.json.runId}`, { headers })
    ).json()) as { messages: Array<{ ended?: string }> };
    expect(stopped.messages[0]!.ended).toBe('stopped');
  });

  it('POST /runs with Accept: text/event-stream streams the run from offset 1', async () => {
    const read = await readEvents(`${base}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(prompt('stream it', FAST)),
    });
    expect(read.status).toBe(200);
    const runId = read.headers.get('resumable-run-id')!;
    const token = read.headers.get('resumable-token')!;
    const run = (await server.store.getRun(runId))!;
    expect(token).toBe((await server.store.getThread(run.threadId))!.token);
    expect(read.frames.map((f) => f.json)).toEqual(
      expectedLog({ runId, threadId: run.threadId }, 'stream it', 20),
    );
  });

  it('CORS is closed by default and open to configured origins', async () => {
    const preflight = await fetch(`${base}/runs`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,Last-Event-ID,Accept',
    );
    const run = await finishedRun();
    const ok = await fetch(`${base}/runs/${run.runId}`, {
      headers: { ...bearer(run.token), Origin: 'https://app.example' },
    });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'Resumable-Run-Id,Resumable-Token,Location,Retry-After',
    );
    const evil = await fetch(`${base}/runs/${run.runId}`, {
      headers: { ...bearer(run.token), Origin: 'https://evil.example' },
    });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });
});
