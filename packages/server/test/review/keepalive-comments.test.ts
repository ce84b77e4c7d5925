import { describe, expect, it } from 'vitest';
import { chunk } from '../fake-upstream.js';
import { openaiStack, runToEnd } from '../upstream/harness.js';

/**
 * sse-reader.ts counts every decoded character as "part of an event", so an upstream that
 * sends only SSE comments (OpenRouter's `: OPENROUTER PROCESSING` keep-alives while a model
 * thinks) is reported as having sent "only part of one" event, which it never did.
 */
describe('an upstream that sends only keep-alive comments', () => {
  it('is not said to have sent part of an event', async () => {
    const { server } = await openaiStack(
      (_req, _body, res) => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(chunk({ content: 'Hel' }));
        const timer = setInterval(() => {
          if (res.destroyed) clearInterval(timer);
          else res.write(': OPENROUTER PROCESSING\n\n');
        }, 50);
      },
      { timeoutMs: 5_000, idleTimeoutMs: 300 },
    );
    const { log } = await runToEnd(server);
    const end = log.at(-1) as { type: string; message: string };
    expect(end.type).toBe('RUN_ERROR');
    expect(end.message).not.toContain('only part of one');
  });
});
