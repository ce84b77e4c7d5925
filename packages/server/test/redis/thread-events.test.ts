import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { bearer, postRun, prompt, readEvents, waitFor } from '../helpers.js';
import { FAST } from '../http-server.js';
import { testRedisUrl, uniquePrefix } from './shared.js';

const custom = (name: string, value: unknown) => JSON.stringify({ type: 'CUSTOM', name, value });

/** Two server instances in this process on one Redis (their own connections, same keys). */
describe('thread event stream across two instances on one Redis', () => {
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    const url = testRedisUrl();
    const prefix = uniquePrefix();
    const store = () => new RedisStore({ url, prefix, log: () => {} });
    [a, b] = await Promise.all([
      startServer({ port: 0, store: store(), instanceId: 'A' }),
      startServer({ port: 0, store: store(), instanceId: 'B' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('a run started on A is announced live to a client of B; a change announced on B reaches A', async () => {
    const first = await postRun(a.url, prompt('first', FAST));
    const { threadId, token } = first.json;
    const headers = bearer(token);
    await waitFor(async () => (await b.manager.threads.head(threadId)).last === 2);

    const onB = readEvents(`${b.url}/threads/${threadId}/events?after=2`, { headers }, 3);
    const onA = readEvents(`${a.url}/threads/${threadId}/events?after=2`, { headers }, 3);
    await waitFor(
      () =>
        b.manager.streamCounts().thread.open === 1 && a.manager.streamCounts().thread.open === 1,
    );
    const second = await postRun(a.url, { ...prompt('second', FAST, 'u2'), threadId }, headers);
    expect(second.status).toBe(201);
    const { runId } = second.json;
    await waitFor(async () => (await a.manager.threads.head(threadId)).last === 4);
    expect(
      await b.manager.announce(threadId, 'resumable.history_changed', { reason: 'renamed' }),
    ).toBe(5);

    const announced = [
      custom('resumable.run_started', {
        runId,
        messages: [{ id: 'u2', role: 'user', content: 'second' }],
        parentMessageId: `msg-${first.json.runId}`,
      }),
      custom('resumable.run_ended', { runId, status: 'finished', outcome: { type: 'success' } }),
      custom('resumable.history_changed', { reason: 'renamed' }),
    ];
    expect((await onB).frames).toEqual(announced.map((json, i) => ({ offset: 3 + i, json })));
    expect((await onA).frames).toEqual((await onB).frames);

    // Either instance replays the same log from any offset.
    const all = await readEvents(`${b.url}/threads/${threadId}/events`, { headers }, 5);
    const fromA = await readEvents(`${a.url}/threads/${threadId}/events`, { headers }, 5);
    expect(fromA.frames).toEqual(all.frames);
    for (let after = 0; after < 5; after++) {
      const read = await readEvents(
        `${a.url}/threads/${threadId}/events?after=${after}`,
        { headers },
        5 - after,
      );
      expect(read.frames).toEqual(all.frames.slice(after));
    }
  });

  it('a thread deleted on A ends the streams following it on B, right after its announcement', async () => {
    const first = await postRun(a.url, prompt('doomed', FAST));
    const { threadId, token } = first.json;
    const headers = bearer(token);
    await waitFor(async () => (await b.manager.threads.head(threadId)).last === 2);
    const onB = readEvents(`${b.url}/threads/${threadId}/events?after=2`, { headers });
    await waitFor(() => b.manager.threads.streams.count(threadId) === 1);
    const deleted = await fetch(`${a.url}/threads/${threadId}`, { method: 'DELETE', headers });
    expect(deleted.status).toBe(204);
    expect((await onB).frames).toEqual([
      { offset: 3, json: custom('resumable.history_changed', { reason: 'deleted' }) },
    ]);
    expect(b.manager.threads.streams.count(threadId)).toBe(0);
    const gone = await fetch(`${b.url}/threads/${threadId}/events?after=3`, { headers });
    expect([gone.status, await gone.json()]).toEqual([
      404,
      { error: { code: 'thread_not_found', message: `no thread ${threadId}` } },
    ]);
  });

  it('announcements racing on both instances get offsets 1..N, each once', async () => {
    const first = await postRun(a.url, prompt('race', FAST));
    const { threadId } = first.json;
    await waitFor(async () => (await a.manager.threads.head(threadId)).last === 2);
    const offsets = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).manager.announce(threadId, 'resumable.history_changed', { i }),
      ),
    );
    expect([...offsets].sort((x, y) => x! - y!)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 3),
    );
    const log = await b.manager.threads.log.read(threadId, 2, 100);
    expect(log.map((e) => e.offset)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
  });
});
