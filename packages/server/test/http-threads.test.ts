import { describe, expect, it } from 'vitest';
import { expectedLog } from './expected.js';
import { bearer, CLUSTER_STORES, postRun, prompt, readEvents, types } from './helpers.js';

import { FAST, SLOW, useHttpServer } from './http-server.js';

describe.each(CLUSTER_STORES)(
  'HTTP validation, threads and CORS on the $name store',
  ({ create }) => {
    const ctx = useHttpServer(create);

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
      const response = await fetch(`${ctx.base}/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { code: 'bad_request', message } });
    });

    it('POST /runs over the body limit answers 413 and starts nothing', async () => {
      const before = ctx.server.manager.activeRunCount;
      const big = JSON.stringify(prompt('x'.repeat(5000), FAST));
      const response = await fetch(`${ctx.base}/runs`, {
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
      const chunked = await fetch(`${ctx.base}/runs`, {
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
      expect(ctx.server.manager.activeRunCount).toBe(before);
    });

    it('a failing agent ends the run with RUN_ERROR agent_failed', async () => {
      const run = await ctx.finishedRun('fail please', {
        tokens: 20,
        tokensPerSecond: 0,
        failAt: 5,
      } as never);
      const read = await readEvents(`${ctx.base}/runs/${run.runId}/events`, {
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
        await fetch(`${ctx.base}/runs/${run.runId}`, { headers: bearer(run.token) })
      ).json();
      expect(status).toMatchObject({
        status: 'error',
        error: { message: 'scripted failure after 5 tokens', code: 'agent_failed' },
      });
    });

    it('GET /threads/:id lists runs newest first with status; messages page with before/limit', async () => {
      const first = await ctx.finishedRun('first question');
      const headers = bearer(first.token);
      const second = await postRun(
        ctx.base,
        { ...prompt('second question', FAST, 'u2'), threadId: first.threadId },
        headers,
      );
      expect(second.status).toBe(201);
      expect(second.json.token).toBe(first.token);
      await ctx.server.manager.waitForRun(second.json.runId);
      const third = await postRun(
        ctx.base,
        { ...prompt('third', SLOW, 'u3'), threadId: first.threadId },
        headers,
      );
      const thread = (await (
        await fetch(`${ctx.base}/threads/${first.threadId}`, { headers })
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
      await fetch(`${ctx.base}/runs/${third.json.runId}/cancel`, { method: 'POST', headers });
      await ctx.server.manager.waitForRun(third.json.runId);

      const all = (await (
        await fetch(`${ctx.base}/threads/${first.threadId}/messages`, { headers })
      ).json()) as {
        messages: Array<{ id: string; role: string; ended?: string }>;
        nextBefore: number | null;
      };
      // The cancelled run's answer keeps its end mark, so every device shows it stopped.
      expect(all.messages.map((m) => `${m.role}:${m.id}:${m.ended ?? '-'}`)).toEqual([
        'user:u1:-',
        `assistant:msg-${first.runId}:-`,
        'user:u2:-',
        `assistant:msg-${second.json.runId}:-`,
        'user:u3:-',
        `assistant:msg-${third.json.runId}:stopped`,
      ]);
      expect(Object.keys(all.messages[5]!).sort()).toEqual([
        'content',
        'ended',
        'id',
        'parentId',
        'role',
      ]);
      expect(all.nextBefore).toBeNull();
      const page1 = (await (
        await fetch(`${ctx.base}/threads/${first.threadId}/messages?limit=4`, { headers })
      ).json()) as { messages: Array<{ id: string }>; nextBefore: number };
      expect(page1.messages.map((m) => m.id)).toEqual([
        'u2',
        `msg-${second.json.runId}`,
        'u3',
        `msg-${third.json.runId}`,
      ]);
      expect(page1.nextBefore).toEqual(expect.any(Number));
      const page2 = (await (
        await fetch(
          `${ctx.base}/threads/${first.threadId}/messages?limit=4&before=${page1.nextBefore}`,
          {
            headers,
          },
        )
      ).json()) as { messages: Array<{ id: string }>; nextBefore: number | null };
      expect(page2.messages.map((m) => m.id)).toEqual(['u1', `msg-${first.runId}`]);
      expect(page2.nextBefore).toBeNull();
      const badLimit = await fetch(`${ctx.base}/threads/${first.threadId}/messages?limit=0`, {
        headers,
      });
      expect(badLimit.status).toBe(400);
      expect(await badLimit.json()).toEqual({
        error: { code: 'bad_request', message: 'limit must be an integer from 1 to 200' },
      });
      const badBefore = await fetch(`${ctx.base}/threads/${first.threadId}/messages?before=x`, {
        headers,
      });
      expect(badBefore.status).toBe(400);
      expect(await badBefore.json()).toEqual({
        error: { code: 'bad_request', message: 'before must be a cursor from nextBefore, got "x"' },
      });
      // A cancelled reply is history too, cut where it stopped.
      const stopped = (await (
        await fetch(`${ctx.base}/runs/${third.json.runId}`, { headers })
      ).json()) as { messages: Array<{ ended?: string }> };
      expect(stopped.messages[0]!.ended).toBe('stopped');
    });

    it('POST /runs with Accept: text/event-stream streams the run from offset 1', async () => {
      const read = await readEvents(`${ctx.base}/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify(prompt('stream it', FAST)),
      });
      expect(read.status).toBe(200);
      const runId = read.headers.get('resumable-run-id')!;
      const token = read.headers.get('resumable-token')!;
      const run = (await ctx.server.store.getRun(runId))!;
      expect(token).toBe((await ctx.server.store.getThread(run.threadId))!.token);
      expect(read.frames.map((f) => f.json)).toEqual(
        expectedLog({ runId, threadId: run.threadId }, 'stream it', 20),
      );
    });

    it('CORS is closed by default and open to configured origins', async () => {
      const preflight = await fetch(`${ctx.base}/runs`, {
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
      const run = await ctx.finishedRun();
      const ok = await fetch(`${ctx.base}/runs/${run.runId}`, {
        headers: { ...bearer(run.token), Origin: 'https://app.example' },
      });
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(ok.headers.get('access-control-expose-headers')).toBe(
        'Resumable-Run-Id,Resumable-Token,Location,Retry-After',
      );
      const evil = await fetch(`${ctx.base}/runs/${run.runId}`, {
        headers: { ...bearer(run.token), Origin: 'https://evil.example' },
      });
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    });
  },
);
