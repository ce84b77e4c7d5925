/**
 * Uploads against a hostile server (issue #10): an XMLHttpRequest upload whose answer
 * trickles or never ends, and a chat's first upload whose `POST /threads` hangs. Each ends
 * in a typed error within its bound, with no unhandled rejection.
 */

import { createRequire } from 'node:module';
import type { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { fetchTransport, uploadFile, xhrTransport } from '../src/core/net/uploads.js';
import { uploadToChat } from '../src/core/uploads/upload-to-chat.js';
import { chatClient, fastBounds, hostileServerPerTest, server, stops } from './hostile-harness.js';
import { type Handler, THREAD, TOKEN } from './hostile-server.js';

// jsdom ships no types of its own: its one constructor, as this file uses it.
const { JSDOM } = createRequire(import.meta.url)('jsdom') as {
  JSDOM: new (
    html: string,
    options: { url: string },
  ) => { window: { close(): void; XMLHttpRequest: typeof XMLHttpRequest; Blob: typeof Blob } };
};

const FAST = fastBounds(300);

hostileServerPerTest();

describe('upload through XMLHttpRequest against a hostile answer', () => {
  /** jsdom's XMLHttpRequest on the server's origin (a page's, with its CORS rules). */
  function page() {
    const { window } = new JSDOM('', { url: new URL(server.url).origin });
    stops.push(() => window.close());
    return window;
  }
  const IDLE_MS = 300;

  /** The upload's outcome: its error code, and when it settled. */
  async function upload(): Promise<{ code: string; ms: number }> {
    const w = page();
    const file = new w.Blob(['hello'], { type: 'text/plain' });
    const api = { endpoint: server.url, fetch };
    const started = Date.now();
    const code = await uploadFile(api, { threadId: THREAD, token: TOKEN }, file, {
      transport: xhrTransport(w.XMLHttpRequest),
      idleTimeoutMs: IDLE_MS,
    }).then(
      () => 'uploaded',
      (error: ResumableError) => error.code,
    );
    return { code, ms: Date.now() - started };
  }

  /** Writes to the answer every `everyMs` until the client hangs up (or the test ends). */
  function endless(chunk: string, everyMs: number): Handler {
    return (hit, _req, res) => {
      if (hit.route !== 'other') return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const timer = setInterval(() => res.write(chunk), everyMs);
      res.on('close', () => clearInterval(timer));
      stops.push(() => clearInterval(timer));
      return true;
    };
  }

  it('the harness: a 201 naming the file uploads', async () => {
    server.handler = (hit, _req, res) =>
      hit.route === 'other' &&
      server.json(res, 201, {
        fileId: 'f1',
        url: '/f1',
        mimeType: 'text/plain',
        name: 'a',
        size: 5,
      });
    expect((await upload()).code).toBe('uploaded');
  });

  it('an answer that trickles forever ends in timeout, the idle bound after the upload', async () => {
    server.handler = endless(' ', 50);
    const { code, ms } = await upload();
    expect(code).toBe('timeout');
    expect(ms).toBeLessThan(IDLE_MS + 1000);
  }, 5000);

  it('an endless answer is not buffered past its bound: unexpected_response', async () => {
    server.handler = endless('x'.repeat(16 * 1024), 1);
    const { code, ms } = await upload();
    expect(code).toBe('unexpected_response');
    expect(ms).toBeLessThan(IDLE_MS + 1000);
  }, 5000);
});

describe('POST /threads (a chat’s first upload) against a hostile server', () => {
  it('hung: the upload fails with timeout at the chat’s requestTimeoutMs', async () => {
    server.handler = (_hit, req, res) =>
      req.method === 'POST' && /\/threads$/.test(req.url ?? '') && server.hang(res);
    const chat = chatClient(undefined, FAST).chatSession('c');
    stops.push(chat.retain());
    const started = Date.now();
    const code = await uploadToChat(chat, new Blob(['hello']), {
      transport: fetchTransport(fetch),
    }).then(
      () => 'uploaded',
      (error: ResumableError) => error.code,
    );
    expect(code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(FAST.requestTimeoutMs + 1000);
  }, 5000);
});
