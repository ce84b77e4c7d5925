import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, createThread } from '../helpers.js';
import { rawRequest, responsesOf } from './raw-client.js';
import { MB } from './util.js';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

/** The server process's resident memory, from /proc (the server alone, not this test). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb[1]) * 1024;
}

const unauthorized = {
  error: {
    code: 'unauthorized',
    message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
  },
};

/**
 * Issue 26, finding 2: an upload is refused from its headers — authentication first, then
 * the rate limits — and its body is never buffered. `pnpm server` as its own process, so
 * its memory is measured alone.
 */
describe('uploads: authentication and rate limits before the body', () => {
  let child: ChildProcess;
  let port: number;
  let thread: { threadId: string; token: string };
  beforeAll(async () => {
    child = fork(main, [], {
      execArgv: ['--conditions=@resumable/source', '--import', 'tsx'],
      env: { ...process.env, PORT: '0', RESUMABLE_STORE: 'memory', RESUMABLE_AGENT: 'scripted' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const [message] = (await once(child, 'message')) as [{ port: number; url: string }];
    port = message.port;
    thread = await createThread(message.url);
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const unauthenticated = () => ({
    head: [
      `POST /api/threads/${thread.threadId}/files?name=big.png HTTP/1.1`,
      'Host: x',
      'Content-Type: image/png',
      'Transfer-Encoding: chunked',
    ].join('\r\n'),
    bodyBytes: 9 * MB,
    chunked: true,
    // 144 pieces of 64 KiB, 14 ms apart: the body takes 2 s to arrive.
    paceMs: 14,
    fill: 0x89,
  });

  it('20 concurrent unauthenticated 9 MiB chunked uploads: each 401 within 1 s of its headers, server RSS +16 MB at most', async () => {
    // Warm the paths up (first-call compilation is not what is measured).
    await rawRequest(port, { ...unauthenticated(), bodyBytes: 64 * 1024, paceMs: 0 });
    const before = rssOf(child.pid!);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(child.pid!));
    }, 20);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => rawRequest(port, unauthenticated())),
    );
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(child.pid!));
    // Before: each answered only after its last chunk (2 s), the whole body buffered
    // first, and the server's RSS grew by 104 to 364 MB.
    expect({
      answers: results.map((result) => {
        const [answer] = responsesOf(result.text);
        return [answer?.status, JSON.parse(answer?.body ?? 'null')];
      }),
      within1s: results.map((result) => (result.answeredAfterMs ?? Infinity) < 1000),
      // A body refused for who sent it is never read: the answer says so, and the
      // connection closes after it.
      closes: results.map((result) => responsesOf(result.text)[0]?.headers.get('connection')),
      rssGrowthUnder16MB: peak - before < 16 * MB,
    }).toEqual({
      answers: Array(20).fill([401, unauthorized]),
      within1s: Array(20).fill(true),
      closes: Array(20).fill('close'),
      rssGrowthUnder16MB: true,
    });
  });
});

/** The same order in-process, with small limits: a refusal never waits for the body. */
describe('uploads: refusals from the headers, in order', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      clientAddress: (request) => request.headers.get('x-client'),
      files: { maxUploadsPerMinutePerAddress: 2, maxUploadsPerMinutePerThread: 3 },
    });
  });
  afterAll(() => server.close());

  const newThread = () => createThread(server.url, { 'X-Client': 'maker' });
  /** A chunked 1 MiB upload whose body takes 2 s to arrive. */
  const slowUpload = (threadId: string, headers: string[]) =>
    rawRequest(server.port, {
      head: [
        `POST /api/threads/${threadId}/files?name=a.png HTTP/1.1`,
        'Host: x',
        'Content-Type: image/png',
        'Transfer-Encoding: chunked',
        ...headers,
      ].join('\r\n'),
      bodyBytes: MB,
      chunked: true,
      paceMs: 125,
      fill: 0x89,
    });
  const answerOf = (result: Awaited<ReturnType<typeof slowUpload>>) => {
    const [answer] = responsesOf(result.text);
    return {
      status: answer?.status,
      body: JSON.parse(answer?.body ?? 'null'),
      retryAfter: answer?.headers.get('retry-after') ?? null,
      fast: (result.answeredAfterMs ?? Infinity) < 1000,
      closes: answer?.headers.get('connection') === 'close',
    };
  };

  it('a wrong token: 403 at once, before the body', async () => {
    const a = await newThread();
    const b = await newThread();
    const answer = answerOf(await slowUpload(a.threadId, [`Authorization: Bearer ${b.token}`]));
    expect(answer).toEqual({
      status: 403,
      body: {
        error: { code: 'forbidden', message: 'this token does not grant access to this thread' },
      },
      retryAfter: null,
      fast: true,
      closes: true,
    });
  });

  it('over the per-address upload rate: 429 + Retry-After at once, before the body', async () => {
    const a = await newThread();
    const auth = [`Authorization: Bearer ${a.token}`, 'X-Client: uploader'];
    // Two small uploads take the address's budget.
    for (let i = 0; i < 2; i++) {
      const ok = await fetch(`${server.url}/threads/${a.threadId}/files?name=a.txt`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', 'X-Client': 'uploader', ...bearer(a.token) },
        body: 'hello',
      });
      expect(ok.status).toBe(201);
    }
    const answer = answerOf(await slowUpload(a.threadId, auth));
    expect({ ...answer, retryAfter: Number(answer.retryAfter) > 50 }).toEqual({
      status: 429,
      body: {
        error: {
          code: 'too_many_requests',
          message: 'this client sent 2 uploads in the last minute, its limit',
        },
      },
      retryAfter: true,
      fast: true,
      closes: true,
    });
  });

  it('an unauthenticated upload is not counted against the thread it names', async () => {
    const a = await newThread();
    for (let i = 0; i < 5; i++) {
      const refused = await fetch(`${server.url}/threads/${a.threadId}/files?name=a.txt`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', 'X-Client': `stranger-${i}` },
        body: 'hello',
      });
      expect(refused.status).toBe(401);
    }
    const owner = await fetch(`${server.url}/threads/${a.threadId}/files?name=a.txt`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'X-Client': 'owner', ...bearer(a.token) },
      body: 'hello',
    });
    expect(owner.status).toBe(201);
  });
});
