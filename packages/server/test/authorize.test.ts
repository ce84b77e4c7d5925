import { ResumableError } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizeTarget, type RunningServer, startServer } from '../src/index.js';
import { prompt } from './helpers.js';

describe('a custom authorize hook replaces the token policy', () => {
  let server: RunningServer;
  const seen: Array<Omit<AuthorizeTarget, 'thread'> & { thread: boolean }> = [];
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      authorize: (request, target) => {
        seen.push({ ...target, thread: target.thread !== null });
        const cookie = request.headers.get('cookie') ?? '';
        if (!cookie.includes('session=')) throw new ResumableError('unauthorized', 'log in first');
        return cookie.includes('session=alice');
      },
    });
  });
  afterAll(() => server.close());

  const post = (cookie: string | null, body: unknown) =>
    fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
      body: JSON.stringify(body),
    });

  it('decides every action, including creating a thread and retrying a POST', async () => {
    const none = await post(null, prompt('hi', { tokens: 2, tokensPerSecond: 0 }));
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: 'unauthorized', message: 'log in first' } });
    const bob = await post('session=bob', prompt('hi', { tokens: 2, tokensPerSecond: 0 }));
    expect(bob.status).toBe(403);

    const runId = crypto.randomUUID();
    const ok = await post('session=alice', {
      ...prompt('hi', { tokens: 2, tokensPerSecond: 0 }),
      runId,
    });
    expect(ok.status).toBe(201);
    const run = (await ok.json()) as { runId: string; threadId: string };
    await server.manager.waitForRun(run.runId);
    // No bearer token needed: the application's session decides.
    const events = await fetch(`${server.url}/runs/${run.runId}/events`, {
      headers: { Cookie: 'session=alice' },
    });
    expect(events.status).toBe(200);
    await events.text();
    const asBob = await fetch(`${server.url}/runs/${run.runId}`, {
      headers: { Cookie: 'session=bob' },
    });
    expect(asBob.status).toBe(403);
    // A retried POST is authorized like any other request under a custom policy.
    const retryAsBob = await post('session=bob', { ...prompt('hi'), runId });
    expect(retryAsBob.status).toBe(403);
    const cancel = await fetch(`${server.url}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: { Cookie: 'session=alice' },
    });
    expect(cancel.status).toBe(202);
    expect(seen.map((s) => s.action)).toEqual([
      'create',
      'create',
      'create',
      'read',
      'read',
      'create',
      'cancel',
    ]);
    expect(seen[3]).toEqual({
      action: 'read',
      threadId: run.threadId,
      runId: run.runId,
      thread: true,
    });
  });
});
