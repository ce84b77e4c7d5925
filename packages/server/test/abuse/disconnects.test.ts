import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { bearer, postRun, prompt, STORES, waitFor } from '../helpers.js';
import { useStoreServer } from './util.js';

/**
 * Sends a request whose body stops halfway (its Content-Length says twice what is sent),
 * then drops the connection once the server has had it for `holdMs`.
 */
async function cutMidBody(port: number, head: string, sent: string, holdMs = 150) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`${head}Content-Length: ${sent.length * 2}\r\n\r\n${sent}`);
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  socket.destroy();
}

/** A client that goes away mid-body leaves nothing behind and is not a server error. */
describe.each(STORES)('abuse: a client that disconnects mid-body ($name)', ({ create }) => {
  const ctx = useStoreServer(create, { files: { maxFileBytes: 2000, maxThreadBytes: 2000 } });
  const errors = vi.spyOn(console, 'error');
  afterEach(() => errors.mockClear());

  it('POST /runs: no thread, no run; an upload: nothing counts; neither is logged as internal', async () => {
    const { json: run } = await postRun(
      ctx.server.url,
      prompt('hi', { tokens: 1, tokensPerSecond: 0 }),
    );
    await ctx.server.manager.waitForRun(run.runId);
    errors.mockClear();
    const body = JSON.stringify({ ...prompt('cut'), threadId: 'cut-mid-body' });
    await cutMidBody(
      ctx.server.port,
      'POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n',
      body,
    );
    await cutMidBody(
      ctx.server.port,
      `POST /api/threads/${run.threadId}/files?name=a.txt HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${run.token}\r\nContent-Type: text/plain\r\n`,
      'y'.repeat(1000),
    );
    await cutMidBody(
      ctx.server.port,
      `PATCH /api/threads/${run.threadId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${run.token}\r\nContent-Type: application/json\r\n`,
      '{"title":"cut',
    );
    // The server has seen all three go away (each ended its request).
    await waitFor(async () => (await fetch(`${ctx.server.url}/runs/nope`)).status === 404);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errors.mock.calls).toEqual([]);
    expect(ctx.logged).toEqual([]);
    expect(await ctx.server.store.getThread('cut-mid-body')).toBeNull();
    // The whole 2000-byte thread budget is still free: the cut upload stored nothing.
    const full = await fetch(`${ctx.server.url}/threads/${run.threadId}/files?name=b.txt`, {
      method: 'POST',
      headers: { ...bearer(run.token), 'Content-Type': 'text/plain' },
      body: 'z'.repeat(2000),
    });
    expect(full.status).toBe(201);
    const thread = (await (
      await fetch(`${ctx.server.url}/threads/${run.threadId}`, { headers: bearer(run.token) })
    ).json()) as { title: string | null; runs: unknown[] };
    expect([thread.title, thread.runs.length]).toEqual([null, 1]);
  });
});

/** What the mid-body rule must not swallow: a real failure on a request without a body. */
describe('abuse: a client that goes away from a bodiless request', () => {
  const failing = new MemoryStore();
  const ctx = useStoreServer(() => failing);
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});

  it('a store failure on its GET is still logged as internal, not called a cut body', async () => {
    failing.getThread = async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      throw new Error('store broke');
    };
    const socket = connect(ctx.server.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      'GET /api/threads/some-thread HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n\r\n',
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    socket.destroy();
    await waitFor(() => errors.mock.calls.length > 0, 3000);
    expect(errors.mock.calls.map((call) => `${call[0]} ${call[1]}`)).toEqual([
      '[resumable] internal error: Error: store broke',
    ]);
  });
});
