import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { chunk } from '../fake-upstream.js';
import { logOf, postRun, prompt } from '../helpers.js';
import {
  bearer,
  failed,
  openaiStack,
  type Respond,
  runToEnd,
  socketsClosed,
  textLog,
} from './harness.js';

/** Hostile upstreams that stall or flood: every run ends in bounded time, its socket closed. */
const openai = (respond: Respond, timeoutMs = 5_000) =>
  openaiStack(respond, { timeoutMs, idleTimeoutMs: 300, maxEventBytes: 64 * 1024 });

const sse = (res: ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/event-stream' });

/** Writes `total` bytes of `piece` with backpressure, until done or the socket is closed. */
function flood(res: ServerResponse, piece: string, total: number) {
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
  };
  pump();
}

describe('hostile upstream: stalls and floods', () => {
  it('accepts the connection and never sends headers: did not answer within timeoutMs', async () => {
    const { upstream, server, what } = await openai(() => {}, 300);
    const { run, log, elapsed, endedAt } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} did not answer within 300 ms`));
    expect(elapsed).toBeLessThan(3_000);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('sends headers, then nothing: sent nothing for idleTimeoutMs', async () => {
    const { upstream, server, what } = await openai((_req, _body, res) => {
      sse(res);
      res.write(chunk({ content: 'Hel' }));
    });
    const { run, log, elapsed, endedAt } = await runToEnd(server);
    expect(log).toEqual(
      textLog(run, ['Hel'], {
        type: 'RUN_ERROR',
        message: `${what} sent nothing for 300 ms`,
        code: 'upstream_failed',
      }),
    );
    expect(elapsed).toBeLessThan(3_000);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('trickles a byte every 50 ms, never completing an event: progress is events, not bytes', async () => {
    const { upstream, server, what } = await openai((_req, _body, res) => {
      sse(res);
      res.write('data: {"choices":[');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 50);
    });
    const { run, log, elapsed, endedAt } = await runToEnd(server);
    expect(log).toEqual(
      failed(run, `${what} sent no complete event for 300 ms (only part of one)`),
    );
    expect(elapsed).toBeLessThan(3_000);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('one unterminated 50 MB data: line fails at maxEventBytes, not at 50 MB', async () => {
    const { upstream, server, what } = await openai((_req, _body, res) => {
      sse(res);
      res.write('data: ');
      flood(res, 'x'.repeat(16 * 1024), 50 * 1024 * 1024);
    });
    const { run, log, endedAt } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} sent a line or event over 65536 bytes`));
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('data: lines with no blank line between them fail at maxEventBytes too', async () => {
    const { upstream, server, what } = await openai((_req, _body, res) => {
      sse(res);
      flood(res, `${'data: {"choices":[]}\n'.repeat(100)}`, 50 * 1024 * 1024);
    });
    const { run, log, endedAt } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} sent a line or event over 65536 bytes`));
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('a run stopped mid-stream aborts the upstream request: its socket closes', async () => {
    let streaming!: () => void;
    const midStream = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const { upstream, server } = await openai((_req, _body, res) => {
      sse(res);
      // One delta, then the stream stays open (within idleTimeoutMs) until our side hangs up.
      res.write(chunk({ content: 'Hel' }), () => setTimeout(streaming, 50));
    });
    const { json: run } = await postRun(server.url, prompt('go'));
    await midStream;
    const stoppedAt = Date.now();
    const cancel = await fetch(`${server.url}/runs/${run.runId}/cancel`, {
      method: 'POST',
      headers: bearer(run.token),
    });
    expect(cancel.status).toBe(202);
    expect(await socketsClosed(upstream, stoppedAt)).toBeLessThan(1_000);
    expect(await logOf(server, run.runId, run.token)).toEqual(
      textLog(run, ['Hel'], {
        type: 'RUN_FINISHED',
        threadId: run.threadId,
        runId: run.runId,
        outcome: { type: 'cancelled' },
      }),
    );
  });
});
