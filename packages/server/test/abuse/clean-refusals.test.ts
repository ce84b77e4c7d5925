import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { createThread } from '../helpers.js';
import { type RawRequest, rawRequest, responsesOf } from './raw-client.js';
import { MB } from './util.js';

const PNG_SIGNATURE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const tooLarge = (message: string) => ({ error: { code: 'payload_too_large', message } });
const RUNS_413 = tooLarge(`the request body is over the limit of ${MB} bytes`);
const FILE_413 = tooLarge(`the file is over the limit of ${MB} bytes`);
const EDIT_413 = tooLarge('the request body is over the limit of 4096 bytes');

/**
 * Issue 26, finding 3: a request refused before its body was read gets its answer —
 * status and JSON error — however fast it sends: the server reads the rest of the body
 * and throws it away (bounded), so the client's writes never meet a reset, and the
 * connection then serves the next request.
 */
describe('clean refusals over raw sockets', () => {
  let server: RunningServer;
  let thread: { threadId: string; token: string };
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      files: {
        maxFileBytes: MB,
        maxUploadsPerMinutePerAddress: 1000,
        maxUploadsPerMinutePerThread: 1000,
      },
    });
    thread = await createThread(server.url);
  });
  afterAll(() => server.close());

  const upload = (chunked: boolean, bytes = 4 * MB): RawRequest => ({
    head: [
      `POST /api/threads/${thread.threadId}/files?name=big.png HTTP/1.1`,
      'Host: x',
      `Authorization: Bearer ${thread.token}`,
      'Content-Type: image/png',
      chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${bytes}`,
    ].join('\r\n'),
    bodyBytes: bytes,
    chunked,
    // A PNG's signature: the size, not the type, is what refuses it.
    start: PNG_SIGNATURE,
    fill: 0x89,
  });
  const postRuns = (chunked: boolean, bytes = 4 * MB): RawRequest => ({
    head: [
      'POST /api/runs HTTP/1.1',
      'Host: x',
      'Content-Type: application/json',
      chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${bytes}`,
    ].join('\r\n'),
    bodyBytes: bytes,
    chunked,
    fill: 0x20,
  });
  /** The first answer of each result, and whether the client's writes all went out. */
  const outcome = (result: Awaited<ReturnType<typeof rawRequest>>) => {
    const [answer] = responsesOf(result.text);
    return {
      status: answer?.status,
      body: answer ? JSON.parse(answer.body) : null,
      error: result.error,
      sentAll: result.sentAll,
    };
  };

  it.each([
    ['uploads with Content-Length', () => upload(false), FILE_413],
    ['chunked uploads', () => upload(true), FILE_413],
    ['POST /runs with Content-Length', () => postRuns(false), RUNS_413],
    ['chunked POST /runs', () => postRuns(true), RUNS_413],
  ])('20 oversize %s at full speed all read their 413, no reset', async (_name, request, body) => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => rawRequest(server.port, request())),
    );
    // Before: every client sending its body with its Content-Length met EPIPE.
    expect(results.map(outcome)).toEqual(
      Array(20).fill({ status: 413, body, error: null, sentAll: true }),
    );
  });

  it.each([
    ['POST /threads', '/api/threads', () => ''],
    ['PATCH /threads/:id', '/api/threads/{id}', () => `Authorization: Bearer ${thread.token}`],
  ])('oversize %s bodies at full speed read their 413 too', async (_name, path, auth) => {
    const method = path.includes('{id}') ? 'PATCH' : 'POST';
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        rawRequest(server.port, {
          head: [
            `${method} ${path.replace('{id}', thread.threadId)} HTTP/1.1`,
            'Host: x',
            'Content-Type: application/json',
            `Content-Length: ${4 * MB}`,
            auth(),
          ]
            .filter(Boolean)
            .join('\r\n'),
          bodyBytes: 4 * MB,
          fill: 0x20,
        }),
      ),
    );
    expect(results.map(outcome)).toEqual(
      Array(5).fill({ status: 413, body: EDIT_413, error: null, sentAll: true }),
    );
  });

  const pipelined = `GET /api/threads/no-such-thread HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
  const notFound = {
    status: 404,
    body: JSON.stringify({
      error: { code: 'thread_not_found', message: 'no thread no-such-thread' },
    }),
  };

  it.each([
    ['an oversize POST /runs', () => postRuns(false), 413],
    ['an oversize chunked POST /runs', () => postRuns(true), 413],
    ['an oversize upload', () => upload(false), 413],
    ['an oversize chunked upload', () => upload(true), 413],
  ])(
    'a request pipelined after %s is answered on the same connection',
    async (_name, request, status) => {
      const result = await rawRequest(server.port, { ...request(), after: pipelined });
      const answers = responsesOf(result.text);
      // Before: the refusal said Connection: close and the pipelined request was dropped.
      expect({
        statuses: answers.map((answer) => answer.status),
        refusalCloses: answers[0]?.headers.get('connection') === 'close',
        second: answers[1] && { status: answers[1].status, body: answers[1].body },
        clean: [result.error, result.sentAll],
      }).toEqual({
        statuses: [status, 404],
        refusalCloses: false,
        second: notFound,
        clean: [null, true],
      });
    },
  );

  it('an upload refused for who sent it says Connection: close: its body is never read', async () => {
    const result = await rawRequest(server.port, {
      ...upload(false),
      head: upload(false).head.replace(/Authorization: .*\r\n/, ''),
      after: pipelined,
    });
    const answers = responsesOf(result.text);
    expect(
      answers.map((answer) => [
        answer.status,
        answer.headers.get('connection'),
        JSON.parse(answer.body),
      ]),
    ).toEqual([
      [
        401,
        'close',
        {
          error: {
            code: 'unauthorized',
            message: 'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
          },
        },
      ],
    ]);
  });

  it('a declared body past what the server drains is refused with Connection: close, and closed', async () => {
    const result = await rawRequest(server.port, {
      head: [
        'POST /api/runs HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `Content-Length: ${1024 * MB}`,
      ].join('\r\n'),
      bodyBytes: 64 * 1024,
      timeoutMs: 5000,
    });
    const [answer] = responsesOf(result.text);
    expect([
      answer?.status,
      answer?.headers.get('connection'),
      JSON.parse(answer?.body ?? ''),
    ]).toEqual([413, 'close', RUNS_413]);
    expect([result.error, result.timedOut]).toEqual([null, false]);
  });
});
