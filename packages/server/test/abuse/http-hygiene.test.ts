import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResumableApp, type RunningServer, startServer } from '../../src/index.js';
import { expectedLog } from '../expected.js';
import { bearer, postRun, prompt, readEvents } from '../helpers.js';
import { heapAfterGc, MB, parseRaw, rawExchange } from './util.js';

/** Classes 1, 5 and 6: HEAD, connection hygiene, cross-site POSTs. Memory store. */
describe('abuse: HEAD, early answers, content types', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, store: 'memory', log: () => {} });
  });
  afterAll(() => server.close());

  it('2,000 HEADs on a finished run open no stream, grow memory < 10 MB, then it streams normally', async () => {
    const started = await postRun(server.url, prompt('heads', { tokens: 20, tokensPerSecond: 0 }));
    await server.manager.waitForRun(started.json.runId);
    const url = `${server.url}/runs/${started.json.runId}/events`;
    const headers = bearer(started.json.token);
    const before = await heapAfterGc();
    // 10 connections × 200 pipelined HEADs: the server's work, not the client's.
    const head = `HEAD ${new URL(url).pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: ${headers.Authorization}\r\n\r\n`;
    const last = head.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => rawExchange(server.port, head.repeat(199) + last, 20_000)),
    );
    for (const answer of answers) {
      expect(answer.text.match(/^HTTP\/1\.1 (\d+)/gm)).toEqual(Array(200).fill('HTTP/1.1 405'));
    }
    expect(server.manager.subscriberCount()).toBe(0);
    expect(await heapAfterGc()).toBeLessThan(before + 10 * MB);
    const read = await readEvents(url, { headers });
    expect(read.status).toBe(200);
    expect(read.frames.map((f) => f.json)).toEqual(expectedLog(started.json, 'heads', 20));
  });

  it('HEAD on a running run opens no subscription either', async () => {
    const run = await postRun(
      server.url,
      prompt('head live', { tokens: 200, tokensPerSecond: 50 }),
    );
    const url = `${server.url}/runs/${run.json.runId}/events`;
    for (let i = 0; i < 50; i++) {
      const r = await fetch(url, { method: 'HEAD', headers: bearer(run.json.token) });
      expect([r.status, r.headers.get('allow')]).toEqual([405, 'GET']);
    }
    expect(server.manager.subscriberCount(run.json.runId)).toBe(0);
    await fetch(`${server.url}/runs/${run.json.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.json.token),
    });
  });

  it.each([
    ['/runs/x/events', 'GET'],
    ['/runs/x', 'GET'],
    ['/threads/x', 'GET, PATCH, DELETE'],
    ['/threads/x/messages', 'GET'],
    ['/threads', 'POST'],
    ['/threads/x/files', 'POST'],
    ['/threads/x/files/f', 'GET'],
    ['/runs', 'POST'],
    ['/runs/x/cancel', 'POST'],
  ])('HEAD %s answers 405 method_not_allowed with Allow: %s', async (path, allow) => {
    const head = await fetch(`${server.url}${path}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('allow'), head.headers.get('content-type')]).toEqual([
      405,
      allow,
      'application/json',
    ]);
  });

  it.each([
    ['PUT', '/runs/x', 'GET'],
    ['DELETE', '/runs/x', 'GET'],
    ['GET', '/runs', 'POST'],
    ['GET', '/runs/x/cancel', 'POST'],
    ['PUT', '/threads/x', 'GET, PATCH, DELETE'],
    ['GET', '/threads', 'POST'],
    ['DELETE', '/threads/x/files/f', 'GET'],
  ])('%s %s answers 405 naming the method the route serves (%s)', async (method, path, allow) => {
    const answer = await fetch(`${server.url}${path}`, { method });
    expect([answer.status, answer.headers.get('allow'), await answer.json()]).toEqual([
      405,
      allow,
      {
        error: {
          code: 'method_not_allowed',
          message: `${method} is not served here: use ${allow}`,
        },
      },
    ]);
  });

  it('a path that is no route stays 404 not_found', async () => {
    const answer = await fetch(`${server.url}/nothing/here`);
    expect([answer.status, await answer.json()]).toEqual([
      404,
      { error: { code: 'not_found', message: 'no route GET /api/nothing/here' } },
    ]);
  });

  it('a body limit over the per-minute prompt budget is refused at start (it would 429 for good)', () => {
    expect(() =>
      createResumableApp({
        limits: { maxBodyBytes: 2 * MB, maxPromptBytesPerMinutePerAddress: MB },
      }),
    ).toThrow(
      new RangeError(
        `limits.maxBodyBytes (${2 * MB}) must not exceed limits.maxPromptBytesPerMinutePerAddress (${MB})`,
      ),
    );
  });

  it('413 before the body is read keeps the connection: the rest is dropped, the next request answered', async () => {
    const path = `${new URL(server.url).pathname}/runs`;
    const next = `GET ${path}/no-such-run HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const raw = await rawExchange(
      server.port,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 * MB}\r\n\r\n${' '.repeat(2 * MB)}${next}`,
    );
    const [refusal, answer] = raw.text.split(/(?=HTTP\/1\.1 )/).map(parseRaw);
    expect(refusal?.status).toBe(413);
    expect(refusal?.headers.get('connection')).toBe('keep-alive');
    expect(JSON.parse(refusal?.body ?? '')).toEqual({
      error: {
        code: 'payload_too_large',
        message: `the request body is over the limit of ${MB} bytes`,
      },
    });
    expect(answer?.status).toBe(404);
    expect([raw.closed, raw.reset]).toEqual([true, false]);
  });

  it('415 before the body is read keeps the connection too', async () => {
    const path = `${new URL(server.url).pathname}/runs`;
    const body = 'messages=1';
    const next = `GET ${path}/no-such-run HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    const raw = await rawExchange(
      server.port,
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}${next}`,
    );
    const [refusal, answer] = raw.text.split(/(?=HTTP\/1\.1 )/).map(parseRaw);
    expect([refusal?.status, refusal?.headers.get('connection'), answer?.status]).toEqual([
      415,
      'keep-alive',
      404,
    ]);
    expect([raw.closed, raw.reset]).toEqual([true, false]);
  });

  it('a 400 after the body was read keeps the connection', async () => {
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"messages": 1}',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('connection')).not.toBe('close');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=x', 'multipart/form-data; boundary=x'],
    ['application/jsonx', 'application/jsonx'],
  ])('POST /runs as %s answers 415 unsupported_media_type', async (type) => {
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': type },
      body: JSON.stringify(prompt('cross-site')),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: {
        code: 'unsupported_media_type',
        message: `the body must be application/json, got ${JSON.stringify(type)}`,
      },
    });
  });

  it('POST /runs with a body and no Content-Type answers 415', async () => {
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      body: new Blob([JSON.stringify(prompt('no type'))]),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: {
        code: 'unsupported_media_type',
        message: 'the body must be application/json, got no Content-Type',
      },
    });
  });

  it('application/json with a charset is accepted; a bodiless cancel needs no type', async () => {
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify(prompt('charset', { tokens: 100, tokensPerSecond: 20 })),
    });
    expect(response.status).toBe(201);
    const run = (await response.json()) as { runId: string; token: string };
    const cancel = await fetch(`${server.url}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect([cancel.status, await cancel.json()]).toEqual([
      202,
      { runId: run.runId, cancelled: true },
    ]);
  });
});
