import { connect } from 'node:net';
import { type AGUIEvent, EventType } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, readEvents, waitFor } from '../helpers.js';
import { heapAfterGc, MB } from './util.js';

const servers: RunningServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function serve(options: Partial<StartServerOptions>) {
  const server = await startServer({ port: 0, store: 'memory', log: () => {}, ...options });
  servers.push(server);
  return server;
}

const delta = (text: string): AGUIEvent =>
  ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta: text }) as AGUIEvent;

/** 24 MiB of events: more than loopback's socket buffers hold, so the writer must wait. */
const start = {
  type: EventType.TEXT_MESSAGE_START,
  messageId: 'm',
  role: 'assistant',
} as AGUIEvent;

async function* bigRun() {
  yield start;
  for (let i = 0; i < 384; i++) yield delta('z'.repeat(64 * 1024));
  yield { type: EventType.TEXT_MESSAGE_END, messageId: 'm' } as AGUIEvent;
}

/**
 * A client that sends its GET and reads nothing until `resume()`; then it reads to the end
 * of the connection: the bytes it got, and whether the server hung up within `ms`.
 */
function stuckReader(port: number, path: string, token: string) {
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  return {
    async resume(ms: number) {
      socket.resume();
      const hungUp = (await within(closed, ms)) !== null;
      socket.destroy();
      return { hungUp, text };
    },
  };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);

describe('abuse: a client that never reads', () => {
  it('its socket is destroyed after socketIdleMs, freeing what was buffered for it', async () => {
    const server = await serve({
      agent: bigRun,
      limits: { maxBytesPerRun: 64 * 1024 * 1024 },
      heartbeatMs: 300,
      socketIdleMs: 800,
    });
    const { json: run } = await postRun(server.url, prompt('big'));
    await server.manager.waitForRun(run.runId);
    const reader = stuckReader(server.port, `/api/runs/${run.runId}/events`, run.token);
    await waitFor(() => server.manager.subscriberCount(run.runId) === 1, 5000);
    // The server lets go of the reader while it still reads nothing (a fixed wait here was
    // too short on a loaded machine, where writing the replay itself took longer).
    await waitFor(() => server.manager.subscriberCount(run.runId) === 0, 15_000);
    // It reads again: what the kernel held, then the end of a connection cut meanwhile.
    // Before, Node had no socket timeout: the whole 24 MiB had stayed buffered for it.
    const { hungUp, text } = await reader.resume(2000);
    expect(hungUp).toBe(true);
    expect(text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    expect(text.length).toBeLessThan(20 * 1024 * 1024);
    expect(text).not.toContain('RUN_FINISHED');
    expect(server.manager.subscriberCount(run.runId)).toBe(0);
  });

  it('a reading client of a run idle for 3 × socketIdleMs keeps its stream (pings move it)', async () => {
    const server = await serve({ heartbeatMs: 300, socketIdleMs: 800 });
    const { json: run } = await postRun(
      server.url,
      prompt('idle', { tokens: 2, tokensPerSecond: 0.4 }),
    );
    const started = Date.now();
    const read = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(Date.now() - started).toBeGreaterThan(2400);
    expect(read.frames.map((f) => f.offset)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(JSON.parse(read.frames[5]!.json).type).toBe('RUN_FINISHED');
  });

  it('20 readers that stop on a 15 MB run hold < 2 MB each; one that reads gets it exactly', async () => {
    const server = await serve({
      agent: async function* () {
        yield start;
        for (let i = 0; i < 60; i++) yield delta(String(i % 10).repeat(250_000));
        yield { type: EventType.TEXT_MESSAGE_END, messageId: 'm' } as AGUIEvent;
      },
    });
    const { json: run } = await postRun(server.url, prompt('big'));
    await server.manager.waitForRun(run.runId);
    await heapAfterGc();
    const before = process.memoryUsage().arrayBuffers;
    const readers = Array.from({ length: 20 }, () =>
      stuckReader(server.port, `/api/runs/${run.runId}/events`, run.token),
    );
    await waitFor(() => server.manager.streamCounts().run.opened === 20);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await heapAfterGc();
    // Before: a whole 256-event page per reader, 6 MB each here (120 MB), for good.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(40 * MB);
    for (const reader of readers) await reader.resume(0);
    const read = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(read.frames.map((f) => f.offset)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    const deltas = read.frames.slice(2, 62).map((f) => JSON.parse(f.json).delta as string);
    expect(deltas).toEqual(Array.from({ length: 60 }, (_, i) => String(i % 10).repeat(250_000)));
  });

  it('socketIdleMs not longer than heartbeatMs is refused at start (idle streams would be cut)', async () => {
    await expect(startServer({ port: 0, heartbeatMs: 1000, socketIdleMs: 1000 })).rejects.toThrow(
      'socketIdleMs (1000) must be longer than heartbeatMs (1000): idle streams would be cut',
    );
  });
});
