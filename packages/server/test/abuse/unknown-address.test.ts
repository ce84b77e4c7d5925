import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/index.js';
import { bearer, postRun, prompt } from '../helpers.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const LOGGED =
  'a request came with no client address (set clientAddress on this host): such clients share one count in every per-address limit (runs, prompt bytes, uploads, open streams)';
const shared = (what: string) => `clients of unknown address ${what}, their shared limit`;

/**
 * With no client address (`clientAddress` gives null: a host that does not give the
 * socket's), every per-address limit counts such requests under one shared key. Before,
 * the limits on runs per minute, running runs, prompt bytes, new threads and uploads
 * skipped them: any number, from any number of clients.
 */
describe('abuse: requests of unknown address share every per-address limit', () => {
  const servers: RunningServer[] = [];
  const aborts: AbortController[] = [];
  afterAll(async () => {
    for (const abort of aborts) abort.abort();
    for (const server of servers) await server.close();
  });
  const start = async (options: Omit<StartServerOptions, 'port' | 'store' | 'log'>) => {
    const logged: string[] = [];
    const server = await startServer({
      port: 0,
      store: 'memory',
      log: (message) => logged.push(message),
      clientAddress: () => null,
      ...options,
    });
    servers.push(server);
    return { server, logged };
  };
  /** A 429 with its exact body, and a Retry-After within the minute's window. */
  const refused = async (response: Response, message: string) => {
    const body = await response.json();
    expect([response.status, body]).toEqual([
      429,
      { error: { code: 'too_many_requests', message } },
    ]);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  };
  const post = (server: RunningServer, body: unknown) =>
    fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const newThread = (server: RunningServer) =>
    fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });

  it('runs per minute, and new threads on the same count (logged once)', async () => {
    const { server, logged } = await start({ limits: { maxRunsPerMinutePerAddress: 2 } });
    for (const text of ['one', 'two']) {
      expect((await postRun(server.url, prompt(text, { tokens: 1 }))).status).toBe(201);
    }
    await refused(
      await post(server, prompt('three', { tokens: 1 })),
      shared('started 2 runs in the last minute'),
    );
    await refused(await newThread(server), shared('started 2 runs or threads in the last minute'));
    expect(logged.filter((line) => line.includes('client address'))).toEqual([LOGGED]);
  });

  it('running runs', async () => {
    const { server } = await start({ limits: { maxRunningRunsPerAddress: 1 } });
    const first = await postRun(server.url, prompt('slow', { tokens: 500, tokensPerSecond: 20 }));
    expect(first.status).toBe(201);
    const second = await post(server, prompt('another', { tokens: 1 }));
    expect([second.status, await second.json()]).toEqual([
      429,
      { error: { code: 'too_many_requests', message: shared('have 1 runs running') } },
    ]);
    await fetch(`${server.url}/runs/${first.json.runId}/cancel`, {
      method: 'POST',
      headers: bearer(first.json.token),
    });
  });

  it('prompt bytes', async () => {
    const { server } = await start({
      limits: { maxBodyBytes: 300, maxPromptBytesPerMinutePerAddress: 300 },
    });
    const body = prompt('x'.repeat(150), { tokens: 1 });
    expect((await post(server, body)).status).toBe(201);
    await refused(await post(server, body), shared('sent 300 bytes of prompts in the last minute'));
  });

  it('uploads and upload bytes', async () => {
    const { server } = await start({
      files: {
        maxFileBytes: 20,
        maxUploadsPerMinutePerAddress: 2,
        maxUploadBytesPerMinutePerAddress: 30,
      },
    });
    const thread = (await (await newThread(server)).json()) as { threadId: string; token: string };
    const upload = (bytes: Uint8Array) =>
      fetch(`${server.url}/threads/${thread.threadId}/files?name=a.png`, {
        method: 'POST',
        headers: { 'Content-Type': 'image/png', ...bearer(thread.token) },
        body: bytes as BodyInit,
      });
    expect((await upload(PNG)).status).toBe(201);
    const big = new Uint8Array(20);
    big.set(PNG);
    await refused(await upload(big), shared('sent 30 bytes of uploads in the last minute'));
    await refused(await upload(PNG), shared('sent 2 uploads in the last minute'));
  });

  it('open event streams (counted so before too)', async () => {
    const { server, logged } = await start({ limits: { maxStreamsPerAddress: 2 } });
    const { json: first } = await postRun(server.url, prompt('one', { tokens: 1 }));
    const open = () => {
      const abort = new AbortController();
      aborts.push(abort);
      return fetch(`${server.url}/threads/${first.threadId}/events`, {
        headers: bearer(first.token),
        signal: abort.signal,
      });
    };
    expect([(await open()).status, (await open()).status]).toEqual([200, 200]);
    await refused(await open(), shared('have 2 open event streams'));
    expect(logged.filter((line) => line.includes('client address'))).toEqual([LOGGED]);
  });
});
