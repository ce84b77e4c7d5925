import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { createThread } from '../helpers.js';
import { rawRequest } from './raw-client.js';

/** Issue 26, finding 7's slow requests: headers and body each have a documented bound. */
describe('slow requests end at the request timeout', () => {
  let server: RunningServer;
  let thread: { threadId: string; token: string };
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      log: () => {},
      headersTimeoutMs: 400,
      requestTimeoutMs: 800,
    });
    thread = await createThread(server.url);
  });
  afterAll(() => server.close());

  const TIMEOUT_408 = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

  it('an upload whose body comes at 20 bytes/s is answered 408 and closed at the request timeout', async () => {
    const started = Date.now();
    const result = await rawRequest(server.port, {
      head: [
        `POST /api/threads/${thread.threadId}/files?name=slow.txt HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${thread.token}`,
        'Content-Type: text/plain',
        'Content-Length: 1000',
      ].join('\r\n'),
      bodyBytes: 1000,
      pieceBytes: 1,
      paceMs: 50,
      fill: 0x61,
      timeoutMs: 5000,
    });
    const took = Date.now() - started;
    // Before: no bound (Node's 300 s): still open when the client gave up at 5 s.
    expect([result.text, result.timedOut]).toEqual([TIMEOUT_408, false]);
    expect(took).toBeGreaterThanOrEqual(800);
    expect(took).toBeLessThan(2500);
  });

  it('headers that come at 20 bytes/s are answered 408 and closed at the headers timeout', async () => {
    const started = Date.now();
    const text = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      let received = '';
      const head = `GET /api/threads/${thread.threadId} HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}`;
      let i = 0;
      const pace = setInterval(() => {
        if (i < head.length && !socket.destroyed) socket.write(head[i++]!);
      }, 50);
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(pace);
        resolve(received);
      });
      setTimeout(() => socket.destroy(), 5000);
    });
    const took = Date.now() - started;
    expect(text).toBe(TIMEOUT_408);
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(2000);
  });

  it('request timeouts are checked at start-up', async () => {
    await expect(
      startServer({ port: 0, headersTimeoutMs: 2000, requestTimeoutMs: 1000 }),
    ).rejects.toThrow(
      new RangeError('headersTimeoutMs (2000) must not exceed requestTimeoutMs (1000)'),
    );
  });
});
