import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createResumableHandler,
  type ResumableHandler,
  scriptedAgent,
  toNodeListener,
} from '../src/index.js';
import { expectedLog, expectedReply } from './expected.js';
import { bearer, postRun, prompt, readEvents } from './helpers.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The protocol end to end against a handler mounted at `base` (an absolute URL). */
async function exerciseProtocol(base: string, handler: ResumableHandler): Promise<void> {
  const path = new URL(base).pathname;
  // POST /runs → 201 with the run's ids and a Location under the mount point.
  const created = await postRun(
    base,
    prompt('Mount me anywhere', { tokens: 6, tokensPerSecond: 0 }),
  );
  expect(created.status).toBe(201);
  const { runId, threadId, token } = created.json;
  expect(created.headers.get('location')).toBe(`${path}/runs/${runId}`);
  await handler.manager.waitForRun(runId);

  // Events after a resume point: exactly the rest of the log, then 204 past its end.
  const log = expectedLog({ runId, threadId }, 'Mount me anywhere', 6);
  const rest = await readEvents(`${base}/runs/${runId}/events?after=2`, { headers: bearer(token) });
  expect(rest.status).toBe(200);
  expect(rest.frames.map((f) => f.offset)).toEqual(log.map((_, i) => i + 1).slice(2));
  expect(rest.frames.map((f) => f.json)).toEqual(log.slice(2));
  const over = await fetch(`${base}/runs/${runId}/events?after=${log.length}`, {
    headers: bearer(token),
  });
  expect(over.status).toBe(204);

  // Snapshot and thread.
  const snapshot = await fetch(`${base}/runs/${runId}`, { headers: bearer(token) });
  expect(await snapshot.json()).toEqual({
    runId,
    threadId,
    status: 'finished',
    lastOffset: log.length,
    messages: [
      { id: `msg-${runId}`, role: 'assistant', content: expectedReply('Mount me anywhere', 6) },
    ],
    outcome: { type: 'success' },
  });
  const thread = (await (
    await fetch(`${base}/threads/${threadId}`, { headers: bearer(token) })
  ).json()) as { threadId: string; runs: Array<{ runId: string; status: string }> };
  expect(thread.threadId).toBe(threadId);
  expect(thread.runs.map((r) => [r.runId, r.status])).toEqual([[runId, 'finished']]);

  // Cancel a slow second run on the same thread.
  const second = await postRun(
    base,
    { threadId, ...prompt('Stop me', { tokens: 500, tokensPerSecond: 50 }, 'u2') },
    bearer(token),
  );
  expect(second.status).toBe(201);
  const slowId = second.json.runId;
  const head = await readEvents(`${base}/runs/${slowId}/events`, { headers: bearer(token) }, 3);
  expect(head.frames.map((f) => f.offset)).toEqual([1, 2, 3]);
  const cancel = await fetch(`${base}/runs/${slowId}/cancel`, {
    method: 'POST',
    headers: bearer(token),
  });
  expect(cancel.status).toBe(202);
  expect(await cancel.json()).toEqual({ runId: slowId, cancelled: true });
  const tail = await readEvents(`${base}/runs/${slowId}/events?after=3`, {
    headers: bearer(token),
  });
  expect(JSON.parse(tail.frames.at(-1)!.json)).toEqual({
    type: 'RUN_FINISHED',
    threadId,
    runId: slowId,
    outcome: { type: 'cancelled' },
  });

  // Access still applies: no token, no events.
  const anonymous = await fetch(`${base}/runs/${runId}`);
  expect(anonymous.status).toBe(401);
}

describe('createResumableHandler', () => {
  describe('in a plain Node http server (toNodeListener), default base /api', () => {
    let handler: ResumableHandler;
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      handler = createResumableHandler({ store: 'memory', agent: scriptedAgent() });
      server = createServer(toNodeListener(handler));
      origin = await listen(server);
    });
    afterAll(async () => {
      await handler.close();
      await stop(server);
    });

    it('serves the protocol under /api', async () => {
      await exerciseProtocol(`${origin}/api`, handler);
    });

    it('answers a path outside its base 404 not_found in its own error format', async () => {
      const response = await fetch(`${origin}/elsewhere/runs`, { method: 'POST' });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: { code: 'not_found', message: 'no route POST /elsewhere/runs' },
      });
    });
  });

  describe('mounted in a Hono app under a custom base path', () => {
    let handler: ResumableHandler;
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      handler = createResumableHandler({
        store: 'memory',
        agent: scriptedAgent(),
        basePath: '/v1/chat/resumable',
      });
      const app = new Hono();
      app.get('/health', (c) => c.text('ok'));
      app.all('/v1/chat/resumable/*', (c) => handler(c.req.raw));
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
      await new Promise<void>((resolve) => server.once('listening', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await handler.close();
      await stop(server);
    });

    it('serves the protocol under /v1/chat/resumable beside the app’s own routes', async () => {
      await exerciseProtocol(`${origin}/v1/chat/resumable`, handler);
      const health = await fetch(`${origin}/health`);
      expect(await health.text()).toBe('ok');
      // The app's routing decides what is not the handler's.
      expect((await fetch(`${origin}/v1/other/runs`)).status).toBe(404);
    });
  });
});
