import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { HTTP_STATUS_BY_CODE } from '@resumable/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, tempDir } from '../helpers.js';

/** Escapes that are malformed, encode separators or dots, or decode to what ids refuse. */
const ESCAPES = [
  '%',
  '%z',
  '%zz',
  '%E0%A4%A',
  '%C0%80',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%0A',
  '%2F',
  '%2f',
  '%5C',
  '%2e',
  '%2E%2E',
  '%25',
  '%C2%85',
  '%E2%80%AE',
];
const WORDS = ['runs', 'threads', 'files', 'messages', 'events', 'cancel', 'api', '..', '.', ''];

/** One path segment: route words, dots, escapes and text, glued in any order. */
const segment = fc
  .array(
    fc.oneof(
      fc.constantFrom(...WORDS),
      fc.constantFrom(...ESCAPES),
      fc.string({ maxLength: 6 }).map(encodeURIComponent),
      fc.stringMatching(/^[A-Za-z0-9._~:@!$&'()*+,;=-]{0,8}$/),
    ),
    { maxLength: 3 },
  )
  .map((parts) => parts.join(''));

/** A query of the parameters the routes read, with hostile values. */
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('after', 'limit', 'before', 'through', 'name', 'token'),
      fc.oneof(
        fc.constantFrom(...ESCAPES),
        segment,
        fc.constantFrom('-1', '1e3', '99999999999999999999'),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

const KNOWN = new Map(Object.entries(HTTP_STATUS_BY_CODE));

/**
 * Issue 26, finding 4 and "malformed input is a 4xx": generated paths, queries and file
 * references never get a 5xx, and every error is the protocol's JSON error at its code's
 * own status. Files in a directory, where a path that escaped would reach the disk.
 */
describe('fuzz: route and file reference parsing never answers 5xx', () => {
  const dir = tempDir();
  let server: RunningServer;
  let thread: { threadId: string; token: string };
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      files: { directory: join(dir.path, 'files') },
      limits: { maxRunsPerMinutePerAddress: 100_000, maxPromptBytesPerMinutePerAddress: 1 << 30 },
    });
    const first = await postRun(server.url, {
      messages: [{ id: 'u1', role: 'user', content: 'hi' }],
      forwardedProps: { script: { tokens: 1, tokensPerSecond: 0 } },
    });
    thread = first.json;
    await server.manager.waitForRun(first.json.runId);
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
    dir.cleanup();
  });

  /** One request through Node's client (which sends the path as it is, unnormalised). */
  const send = (
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ) =>
    new Promise<{ status: number; type: string | null; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method,
          path,
          agent,
          headers: {
            ...headers,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: res.headers['content-type'] ?? null,
              text,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  /** A 2xx, or the protocol's JSON error with a known code at that code's status. */
  const wellFormed = (answer: { status: number; type: string | null; text: string }) => {
    if (answer.status < 300 && answer.status >= 200) return true;
    if (answer.status >= 500 || answer.type !== 'application/json') return false;
    const body = JSON.parse(answer.text) as { error?: { code?: string; message?: unknown } };
    const code = body.error?.code ?? '';
    return KNOWN.get(code) === answer.status && typeof body.error?.message === 'string';
  };

  it('generated paths and queries on every method: 2xx or a JSON 4xx, never 5xx', async () => {
    const paths = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'),
      segments: fc.array(fc.oneof(segment, fc.constant(thread.threadId)), {
        minLength: 1,
        maxLength: 5,
      }),
      query,
      auth: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(paths, async ({ method, segments, query: q, auth }) => {
        const path = `/api/${segments.join('/')}${q}`;
        // A body the routes refuse: nothing is created, whatever the path.
        const body = method === 'POST' || method === 'PATCH' ? '{"title":7}' : undefined;
        const answer = await send(method, path, body, auth ? bearer(thread.token) : {});
        if (!wellFormed(answer))
          throw new Error(`${method} ${path} → ${answer.status} ${answer.text}`);
      }),
      { numRuns: 400, seed: 26 },
    );
  });

  it("generated file references in a prompt: 400 bad_request naming the part, never 5xx, and the reader's files stay put", async () => {
    const prefix = `/api/threads/${thread.threadId}/files/`;
    const references = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .array(fc.oneof(segment, fc.constantFrom(...ESCAPES)), { maxLength: 4 })
        .map((parts) => `${prefix}${parts.join('/')}`),
      fc.tuple(segment, segment).map(([a, b]) => `${prefix}${a}${b}?token=${a}`),
      fc.webUrl({ withQueryParameters: true }),
      fc.constantFrom(prefix, `${prefix}..`, `${prefix}.`, `${prefix}..%2F..%2F..%2Fetc%2Fpasswd`),
    );
    await fc.assert(
      fc.asyncProperty(references, async (value) => {
        const body = JSON.stringify({
          threadId: thread.threadId,
          messages: [
            {
              id: 'u-fuzz',
              role: 'user',
              content: [{ type: 'image', source: { type: 'url', value } }],
            },
          ],
        });
        const answer = await send('POST', '/api/runs', body, bearer(thread.token));
        const expected = JSON.stringify({
          error: {
            code: 'bad_request',
            message:
              'messages[0].content[0].source must be {type:"url", value} with the URL of a file uploaded to this thread',
          },
        });
        if (answer.status !== 400 || answer.text !== expected) {
          throw new Error(`${JSON.stringify(value)} → ${answer.status} ${answer.text}`);
        }
      }),
      { numRuns: 300, seed: 26 },
    );
    expect((await server.store.listRuns(thread.threadId, 10)).length).toBe(1);
  });
});
