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
    const error = log[log.length - 1] as { type: string; message: string };
    expect(error.type).toBe('RUN_ERROR');
    expect(error.message).not.toContain('s3cret-agent-key');
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
    const error = log[log.length - 1] as { type: string; message: string };
    expect(error.type).toBe('RUN_ERROR');
    expect(error.message).not.toContain('sk-live-0123456789');
  });
});
