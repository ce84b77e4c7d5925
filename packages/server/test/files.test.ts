import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, type RunningServer } from '../src/index.js';
import { bearer, postRun, prompt, STORES, serve, tempDir } from './helpers.js';
import { FAST } from './http-server.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const PDF = new TextEncoder().encode('%PDF-1.7\n');
const error = (code: string, message: string) => ({ error: { code, message } });

/** Each store keeping its own files, and the memory store with a files directory. */
const VARIANTS = [
  ...STORES.map((s) => ({ ...s, directory: false })),
  { name: 'memory + directory', create: () => new MemoryStore(), directory: true },
];

describe.each(VARIANTS)('files on the $name store', ({ create, directory }) => {
  const dir = tempDir();
  let server: RunningServer;
  let threadId: string;
  let token: string;
  beforeAll(async () => {
    server = await serve(create, dir.path, {
      files: {
        maxFileBytes: 1000,
        maxThreadBytes: 1500,
        allowedTypes: ['image/png', 'text/plain', 'text/markdown'],
        ...(directory ? { directory: join(dir.path, 'files') } : {}),
      },
    });
    const first = await postRun(server.url, prompt('hi', FAST));
    ({ threadId, token } = first.json);
    await server.manager.waitForRun(first.json.runId);
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  const at = (path: string) => new URL(path, server.url).href;
  const upload = async (bytes: Uint8Array, type: string, name = 'a.png', auth = token) => {
    const response = await fetch(
      `${server.url}/threads/${threadId}/files?name=${encodeURIComponent(name)}`,
      {
        method: 'POST',
        headers: { 'Content-Type': type, ...bearer(auth) },
        body: bytes as BodyInit,
      },
    );
    return { status: response.status, body: await response.json() };
  };

  it('stores a sniffed upload and serves it with the thread token only', async () => {
    const made = await upload(PNG, 'image/png');
    const { fileId } = made.body;
    // A path from the origin, under the server's base path (startServer's `/api`).
    const url = `/api/threads/${threadId}/files/${fileId}`;
    expect(made).toEqual({
      status: 201,
      body: { fileId, url, mimeType: 'image/png', size: 12, name: 'a.png' },
    });
    for (const init of [{ headers: bearer(token) }, { query: `?token=${token}` }]) {
      const query = 'query' in init ? init.query : '';
      const response = await fetch(at(`${url}${query}`), init as RequestInit);
      expect(response.status).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-disposition')).toBe(null);
    }
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(at(path), { headers });
      return { status: response.status, body: await response.json() };
    };
    expect((await get(url)).status).toBe(401);
    expect(await get(url, bearer('wrong'))).toEqual({
      status: 403,
      body: error('forbidden', 'this token does not grant access to this thread'),
    });
    expect(await get(`/api/threads/${threadId}/files/nope`, bearer(token))).toEqual({
      status: 404,
      body: error('file_not_found', `thread ${threadId} has no file nope`),
    });
    expect((await upload(PNG, 'image/png', 'a.png', 'wrong')).status).toBe(403);

    const notes = await upload(new TextEncoder().encode('# Notes ✓\n'), 'text/markdown', 'n é.md');
    expect(notes.body.mimeType).toBe('text/markdown');
    const text = await fetch(at(notes.body.url), { headers: bearer(token) });
    expect(text.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(text.headers.get('content-disposition')).toBe(
      `attachment; filename="n _.md"; filename*=UTF-8''n%20%C3%A9.md`,
    );
  });

  it('refuses a type that lies or is not allowed (415) and sizes over the limits (413)', async () => {
    expect(await upload(PNG, 'image/jpeg')).toEqual({
      status: 415,
      body: error('unsupported_media_type', "the file's bytes are not image/jpeg"),
    });
    expect(await upload(PDF, 'application/pdf', 'a.pdf')).toEqual({
      status: 415,
      body: error('unsupported_media_type', 'application/pdf files are not accepted here'),
    });
    expect(await upload(new Uint8Array(1001), 'image/png')).toEqual({
      status: 413,
      body: error('payload_too_large', 'the file is over the limit of 1000 bytes'),
    });
    const big = new Uint8Array(800);
    big.set(PNG);
    // 12 + 11 bytes are stored by the first test: 800 fits once, not twice.
    expect((await upload(big, 'image/png')).status).toBe(201);
    expect(await upload(big, 'image/png')).toEqual({
      status: 413,
      body: error(
        'payload_too_large',
        "the thread's files would be over their limit of 1500 bytes",
      ),
    });
  });

  it('a prompt names only its own thread files; delete removes them', async () => {
    const mine = (await upload(PNG, 'image/png', 'b.png')).body;
    const part = (value: string) => ({
      threadId,
      messages: [
        {
          id: `u-${Math.random()}`,
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'url', value, mimeType: 'image/png' } },
          ],
        },
      ],
    });
    const refusal = error(
      'bad_request',
      'messages[0].content[1].source must be {type:"url", value} with the URL of a file uploaded to this thread',
    );
    for (const value of [
      'https://elsewhere.example/cat.png',
      `/api/threads/other/files/${mine.fileId}`,
      `/api/threads/${threadId}/files/nope`,
    ]) {
      const refused = await postRun(server.url, part(value), bearer(token));
      expect([refused.status, refused.json]).toEqual([400, refusal]);
    }
    const accepted = await postRun(server.url, part(mine.url), bearer(token));
    expect(accepted.status).toBe(201);
    await server.manager.waitForRun(accepted.json.runId);

    const deleted = await fetch(`${server.url}/threads/${threadId}`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(deleted.status).toBe(204);
    const gone = await fetch(at(mine.url), { headers: bearer(token) });
    expect([gone.status, await gone.json()]).toEqual([
      404,
      error('thread_not_found', `no thread ${threadId}`),
    ]);
    const files = server.store.files;
    expect(directory || (await files.head(threadId, mine.fileId)) === null).toBe(true);
    expect(existsSync(join(dir.path, 'files', threadId))).toBe(false);
  });

  it('an upload no prompt named is swept after files.unreferencedHours; a named one stays', async () => {
    const fresh = await postRun(server.url, prompt('again', FAST));
    ({ threadId, token } = fresh.json);
    await server.manager.waitForRun(fresh.json.runId);
    const text = new TextEncoder().encode('a'.repeat(900));
    const unnamed = (await upload(text, 'text/plain', 'notes.txt')).body;
    const named = (await upload(PNG, 'image/png', 'c.png')).body;
    const image = { type: 'image', source: { type: 'url', value: named.url } };
    const run = await postRun(
      server.url,
      { threadId, messages: [{ id: 'u-named', role: 'user', content: [image] }] },
      bearer(token),
    );
    expect(run.status).toBe(201);
    await server.manager.waitForRun(run.json.runId);
    const status = async (url: string) => (await fetch(at(url), { headers: bearer(token) })).status;
    // Within the 24 hours nothing is swept.
    await server.manager.pruneExpiredEvents(Date.now() + 23 * 3_600_000);
    expect([await status(unnamed.url), await status(named.url)]).toEqual([200, 200]);
    await server.manager.pruneExpiredEvents(Date.now() + 25 * 3_600_000);
    // A directory of files is not swept (it keeps no record of what prompts named).
    expect([await status(unnamed.url), await status(named.url)]).toEqual([
      directory ? 200 : 404,
      200,
    ]);
    // The swept bytes left the thread's total: 900 + 12 + 900 is over its 1500.
    const again = await upload(text, 'text/plain', 'notes.txt');
    expect(again.status).toBe(directory ? 413 : 201);
  });
});
