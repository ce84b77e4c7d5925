import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, postRun, prompt, readEvents } from '../helpers.js';
import { errorBody } from './util.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 5, 5]);

/**
 * Issue 26, finding 7: control characters per Unicode (C1 too) in titles and file names,
 * trailing slashes, and the headers of file responses.
 */
describe('names, paths and file headers', () => {
  let server: RunningServer;
  let thread: { threadId: string; token: string };
  beforeAll(async () => {
    server = await startServer({ port: 0, store: 'memory', log: () => {} });
    const first = await postRun(server.url, prompt('hi', { tokens: 2, tokensPerSecond: 0 }));
    thread = first.json;
    await server.manager.waitForRun(first.json.runId);
  });
  afterAll(() => server.close());

  const titleRefusal = errorBody(
    'bad_request',
    'title must be a string of 1 to 200 characters, without control characters',
  );
  const nameRefusal = errorBody(
    'bad_request',
    "name must be the file's name: 1 to 255 characters, without / \\, control or bidi control characters",
  );
  const C1 = ['\u0080', '\u0085', '\u009b', '\u009f'].map((c) => [
    c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0'),
    c,
  ]);

  it.each(C1)(
    'a title with the C1 control U+%s answers 400 on POST and PATCH',
    async (_code, control) => {
      const title = `Trip${control}Paris`;
      const made = await fetch(`${server.url}/threads`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title }),
      });
      // Before: 201 (only C0 and DEL were refused).
      expect([made.status, await made.json()]).toEqual([400, titleRefusal]);
      const renamed = await fetch(`${server.url}/threads/${thread.threadId}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', ...bearer(thread.token) },
        body: JSON.stringify({ title }),
      });
      expect([renamed.status, await renamed.json()]).toEqual([400, titleRefusal]);
    },
  );

  it.each(C1)('a file name with the C1 control U+%s answers 400', async (_code, control) => {
    const response = await fetch(
      `${server.url}/threads/${thread.threadId}/files?name=${encodeURIComponent(`cat${control}.png`)}`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'image/png', ...bearer(thread.token) },
        body: PNG as BodyInit,
      },
    );
    // Before: 201.
    expect([response.status, await response.json()]).toEqual([400, nameRefusal]);
  });

  it('every file response says Referrer-Policy: no-referrer and X-Content-Type-Options: nosniff', async () => {
    const upload = async (bytes: Uint8Array | string, type: string, name: string) => {
      const response = await fetch(`${server.url}/threads/${thread.threadId}/files?name=${name}`, {
        method: 'POST',
        headers: { 'Content-Type': type, ...bearer(thread.token) },
        body: bytes as BodyInit,
      });
      return ((await response.json()) as { url: string }).url;
    };
    const urls = [
      await upload(PNG, 'image/png', 'a.png'),
      await upload('%PDF-1.7\n', 'application/pdf', 'a.pdf'),
      await upload('plain', 'text/plain', 'a.txt'),
      `/api/threads/${thread.threadId}/files/no-such-file`,
    ];
    const seen = [];
    for (const url of urls) {
      const response = await fetch(new URL(url, server.url), { headers: bearer(thread.token) });
      await response.arrayBuffer();
      seen.push([
        response.status,
        response.headers.get('referrer-policy'),
        response.headers.get('x-content-type-options'),
      ]);
    }
    // Before: no Referrer-Policy at all, and the 404 had no nosniff either.
    expect(seen).toEqual([
      [200, 'no-referrer', 'nosniff'],
      [200, 'no-referrer', 'nosniff'],
      [200, 'no-referrer', 'nosniff'],
      [404, 'no-referrer', 'nosniff'],
    ]);
  });

  it('a trailing slash is answered like the route (never 405 naming the method used)', async () => {
    const upload = await fetch(`${server.url}/threads/${thread.threadId}/files?name=a.png`, {
      method: 'POST',
      headers: { 'Content-Type': 'image/png', ...bearer(thread.token) },
      body: PNG as BodyInit,
    });
    const { fileId } = (await upload.json()) as { fileId: string };
    const { threadId, token } = thread;
    const run = (await server.store.listRuns(threadId, 1))[0]!.runId;
    const auth = bearer(token);
    const answers = [];
    for (const path of [
      `/threads/${threadId}`,
      `/threads/${threadId}/messages`,
      `/threads/${threadId}/files/${fileId}`,
      `/runs/${run}`,
    ]) {
      const plain = await fetch(`${server.url}${path}`, { headers: auth });
      const slashed = await fetch(`${server.url}${path}/`, { headers: auth });
      answers.push([path, slashed.status, (await slashed.text()) === (await plain.text())]);
    }
    // Streams: the same first event with and without the slash.
    for (const path of [`/threads/${threadId}/events`, `/runs/${run}/events`]) {
      const plain = await readEvents(`${server.url}${path}`, { headers: auth }, 1);
      const slashed = await readEvents(`${server.url}${path}/`, { headers: auth }, 1);
      answers.push([
        path,
        slashed.status,
        JSON.stringify(slashed.frames) === JSON.stringify(plain.frames),
      ]);
    }
    // Before: 405 with `Allow: GET` for a GET.
    expect(answers).toEqual([
      [`/threads/${threadId}`, 200, true],
      [`/threads/${threadId}/messages`, 200, true],
      [`/threads/${threadId}/files/${fileId}`, 200, true],
      [`/runs/${run}`, 200, true],
      [`/threads/${threadId}/events`, 200, true],
      [`/runs/${run}/events`, 200, true],
    ]);
    const slashedPost = await fetch(`${server.url}/runs/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(prompt('slash', { tokens: 1, tokensPerSecond: 0 })),
    });
    expect(slashedPost.status).toBe(201);
    const renamed = await fetch(`${server.url}/threads/${threadId}/`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: '{"title":"Slashed"}',
    });
    expect([renamed.status, ((await renamed.json()) as { title: string }).title]).toEqual([
      200,
      'Slashed',
    ]);
  });
});
