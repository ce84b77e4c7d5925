import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer } from '../helpers.js';
import { errorBody } from './util.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** Class 3 (per-client cost) for uploads: per thread, per address, bytes per address. */
describe('abuse: upload rate limits', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      // The client's address is the `X-Client` header (as behind a proxy).
      clientAddress: (request) => request.headers.get('x-client'),
      files: {
        maxFileBytes: 20,
        maxUploadsPerMinutePerThread: 2,
        maxUploadsPerMinutePerAddress: 3,
        maxUploadBytesPerMinutePerAddress: 40,
      },
    });
  });
  afterAll(() => server.close());

  const thread = async (): Promise<{ threadId: string; token: string }> => {
    const response = await fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Client': 'thread-maker' },
      body: '{}',
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { threadId: string; token: string };
  };
  const upload = async (
    to: { threadId: string; token: string },
    client: string,
    bytes: Uint8Array = PNG,
    type = 'image/png',
  ) => {
    const response = await fetch(`${server.url}/threads/${to.threadId}/files?name=a.png`, {
      method: 'POST',
      headers: { 'Content-Type': type, 'X-Client': client, ...bearer(to.token) },
      body: bytes as BodyInit,
    });
    const body = (await response.json()) as { error?: { code: string; message: string } };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
  };
  /** A 429's body and its Retry-After: the whole window, less the moments the test took. */
  const refused = (result: Awaited<ReturnType<typeof upload>>, message: string) => {
    expect([result.status, result.body]).toEqual([
      429,
      { error: { code: 'too_many_requests', message } },
    ]);
    expect(Number(result.retryAfter)).toBeGreaterThanOrEqual(55);
    expect(Number(result.retryAfter)).toBeLessThanOrEqual(60);
  };

  it('per thread, then per address: the next upload answers 429 with Retry-After', async () => {
    const a = await thread();
    const b = await thread();
    expect((await upload(a, 'c1')).status).toBe(201);
    // A refused upload counts too: reading it cost as much.
    expect((await upload(a, 'c2', new TextEncoder().encode('%PDF-1.7\n'))).status).toBe(415);
    refused(
      await upload(a, 'c3'),
      `thread ${a.threadId} took 2 uploads in the last minute, its limit`,
    );
    // Another thread from c1 is still taken: two of c1's three.
    expect((await upload(b, 'c1')).status).toBe(201);
    const c = await thread();
    expect((await upload(c, 'c1', PNG, 'text/plain')).status).toBe(415);
    refused(await upload(c, 'c1'), 'this client sent 3 uploads in the last minute, its limit');
    // The refusals were not counted against thread c: another client uploads there.
    expect((await upload(c, 'c4')).status).toBe(201);
  });

  it('bytes per address: past the budget the next upload answers 429', async () => {
    const [a, b, c] = [await thread(), await thread(), await thread()];
    const big = new Uint8Array(20);
    big.set(PNG);
    expect((await upload(a, 'heavy', big)).status).toBe(201);
    expect((await upload(b, 'heavy', big)).status).toBe(201);
    // 40 of 40 bytes sent (two of three uploads): 12 more would pass the budget.
    refused(
      await upload(c, 'heavy'),
      'this client sent 40 bytes of uploads in the last minute, its limit',
    );
  });

  it('a file larger than the per-minute byte budget is refused at start-up', async () => {
    await expect(
      startServer({
        port: 0,
        files: { maxFileBytes: 2000, maxUploadBytesPerMinutePerAddress: 1000 },
      }),
    ).rejects.toThrow(
      new RangeError(
        'files.maxFileBytes (2000) must not exceed files.maxUploadBytesPerMinutePerAddress (1000)',
      ),
    );
  });
});

describe('abuse: upload names that display as another name', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      files: { maxThreadBytes: 12 },
    });
  });
  afterAll(() => server.close());

  it('a name with a bidi embedding, override or isolate answers 400 and stores nothing', async () => {
    const made = await fetch(`${server.url}/threads`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    const { threadId, token } = (await made.json()) as { threadId: string; token: string };
    const upload = (name: string) =>
      fetch(`${server.url}/threads/${threadId}/files?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'image/png', ...bearer(token) },
        body: PNG as BodyInit,
      });
    const refusal = errorBody(
      'bad_request',
      "name must be the file's name: 1 to 255 characters, without / \\, control or bidi control characters",
    );
    // `cat\u202Egnp.exe` shows as `catexe.png`. Before: 201, stored under that name.
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      const response = await upload(`cat${String.fromCodePoint(code)}gnp.exe`);
      expect([code.toString(16), response.status, await response.json()]).toEqual([
        code.toString(16),
        400,
        refusal,
      ]);
    }
    // Nothing was stored: the thread's whole budget (one PNG) is still free.
    const plain = await upload('cat.png');
    expect([plain.status, ((await plain.json()) as { name: string }).name]).toEqual([
      201,
      'cat.png',
    ]);
  });
});
