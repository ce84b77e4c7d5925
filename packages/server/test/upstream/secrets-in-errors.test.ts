import { describe, expect, it } from 'vitest';
import { aguiProxyAgent, openaiAgent } from '../../src/index.js';
import { hostileUpstream, runToEnd, serveAgent } from '../upstream/harness.js';

/**
 * A run's RUN_ERROR message is stored and shown to every reader of the thread (the end
 * user, not the operator). The operator's secrets (an API key in the URL, or echoed back by
 * an upstream that quotes the request's Authorization header in its error) must not be in it.
 */
describe('upstream errors do not carry the operator secrets into stored events', () => {
  it('an AG-UI url whose query carries a key: the key is not in the RUN_ERROR message', async () => {
    const upstream = await hostileUpstream((_req, _body, res) => {
      res.writeHead(500);
      res.end();
    });
    const server = await serveAgent(
      aguiProxyAgent({ url: `${upstream.url}/agent?key=s3cret-agent-key`, timeoutMs: 2_000 }),
    );
    const { log } = await runToEnd(server);
    expect(log.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'upstream_failed',
      message: `the upstream AG-UI agent at ${upstream.url}/agent answered 500`,
    });
  });

  it('an OpenAI-compatible upstream that echoes the Authorization header in its error', async () => {
    const upstream = await hostileUpstream((req, _body, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: `Invalid API key: ${req.headers.authorization}` } }),
      );
    });
    const server = await serveAgent(
      openaiAgent({ baseUrl: upstream.url, apiKey: 'sk-live-0123456789', timeoutMs: 2_000 }),
    );
    const { log } = await runToEnd(server);
    expect(log.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'upstream_failed',
      message: `the OpenAI-compatible endpoint ${upstream.url} answered 401: Invalid API key: [redacted]`,
    });
  });
});

describe("redaction touches only what an error quotes, never the model's text", () => {
  const KEY = 'sk-live-0123456789';
  const stream = (chunks: string[]) =>
    hostileUpstream((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const data of chunks) res.write(`data: ${data}\n\n`);
      res.end('data: [DONE]\n\n');
    });

  it('an in-stream error quoting the key: the exact message, the key redacted', async () => {
    const upstream = await stream([JSON.stringify({ error: { message: `bad key ${KEY}` } })]);
    const server = await serveAgent(
      openaiAgent({ baseUrl: upstream.url, apiKey: KEY, timeoutMs: 2_000 }),
    );
    const { log } = await runToEnd(server);
    expect(log.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'upstream_failed',
      message: `the OpenAI-compatible endpoint ${upstream.url} sent an error: bad key [redacted]`,
    });
  });

  it('a reply that contains the same characters as a secret is stored as the model wrote it', async () => {
    // Before, every data line was redacted: a reply quoting a header value or a URL query
    // value (an api-version date) lost those characters.
    const text = `Your key ${KEY} looks revoked.`;
    const upstream = await stream([
      JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] }),
      JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    ]);
    const server = await serveAgent(
      openaiAgent({ baseUrl: upstream.url, apiKey: KEY, timeoutMs: 2_000 }),
    );
    const { log } = await runToEnd(server);
    expect(log.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toEqual([
      expect.objectContaining({ delta: text }),
    ]);
    expect(log.at(-1)?.type).toBe('RUN_FINISHED');
  });
});
