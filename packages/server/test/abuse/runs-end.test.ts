import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AGUIEvent, EventType } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type Agent,
  aguiProxyAgent,
  openaiAgent,
  type RunningServer,
  type StartServerOptions,
  startServer,
} from '../../src/index.js';
import { bearer, postRun, prompt, readEvents } from '../helpers.js';

const servers: RunningServer[] = [];
const upstreams: Server[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const upstream of upstreams) upstream.closeAllConnections();
  for (const upstream of upstreams) await new Promise((resolve) => upstream.close(resolve));
});

async function serve(agent: Agent, options: Partial<StartServerOptions> = {}) {
  const server = await startServer({ port: 0, store: 'memory', agent, log: () => {}, ...options });
  servers.push(server);
  return server;
}

/** Runs one prompt to its end: its log (type and the terminal event) and its snapshot. */
async function runToEnd(server: RunningServer) {
  const { json: run, status } = await postRun(server.url, prompt('go'));
  expect(status).toBe(201);
  const headers = bearer(run.token);
  const log = await readEvents(`${server.url}/runs/${run.runId}/events`, { headers });
  const events = log.frames.map((f) => JSON.parse(f.json) as AGUIEvent & Record<string, unknown>);
  const snapshot = (await (await fetch(`${server.url}/runs/${run.runId}`, { headers })).json()) as {
    status: string;
    messages: Array<{ content?: string }>;
  };
  return { run, events, last: events[events.length - 1]!, snapshot };
}

const text = (delta: string): AGUIEvent =>
  ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm', delta }) as AGUIEvent;
const start = {
  type: EventType.TEXT_MESSAGE_START,
  messageId: 'm',
  role: 'assistant',
} as AGUIEvent;

/** A real upstream on 127.0.0.1 that answers with `onRequest`. */
async function upstream(onRequest: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(onRequest);
  upstreams.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Class 2 (runs that never end) and the per-run part of class 3 (cost). */
describe('abuse: every run ends', () => {
  it('a hung agent ends agent_timeout after agentTimeoutMs, keeping its partial text', async () => {
    const server = await serve(
      async function* () {
        yield start;
        yield text('partial ');
        await new Promise(() => {});
      },
      { limits: { agentTimeoutMs: 300 } },
    );
    const { last, snapshot } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: 'the agent sent nothing for 300 ms',
      code: 'agent_timeout',
    });
    expect(snapshot.status).toBe('error');
    expect(snapshot.messages.map((m) => m.content)).toEqual(['partial ']);
  });

  it('an agent that never stops ends run_timeout after maxRunMs, keeping its text', async () => {
    const server = await serve(
      async function* () {
        yield start;
        for (let i = 0; ; i++) {
          yield text(`${i} `);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
      { limits: { maxRunMs: 400, agentTimeoutMs: 1000 } },
    );
    const { last, events, snapshot } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: 'the run reached its limit of 400 ms',
      code: 'run_timeout',
    });
    const deltas = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(deltas.length).toBeGreaterThan(3);
    expect(snapshot.messages[0]?.content).toBe(deltas.join(''));
  });

  it('an endless fast agent ends run_too_large at maxEventsPerRun, offsets 1..N', async () => {
    const server = await serve(
      async function* () {
        yield start;
        for (;;) yield text('x');
      },
      { limits: { maxEventsPerRun: 50 } },
    );
    const { events, last } = await runToEnd(server);
    expect(events).toHaveLength(50);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: 'the run reached the limit of 50 events',
      code: 'run_too_large',
    });
  });

  it('an agent sending huge deltas ends run_too_large at maxBytesPerRun', async () => {
    const server = await serve(
      async function* () {
        yield start;
        for (;;) yield text('y'.repeat(10_000));
      },
      { limits: { maxBytesPerRun: 100_000 } },
    );
    const { events, last, snapshot } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: 'the run reached the limit of 100000 bytes of events',
      code: 'run_too_large',
    });
    // RUN_STARTED, TEXT_MESSAGE_START, 9 deltas of ~10 KB, the terminal event.
    expect(events).toHaveLength(12);
    expect(snapshot.messages[0]?.content).toBe('y'.repeat(90_000));
  });

  it('an AG-UI upstream that stalls mid-stream ends upstream_failed after its idle timeout', async () => {
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(start)}\n\n`);
      res.write(`data: ${JSON.stringify(text('before the stall'))}\n\n`);
      // …and nothing more, socket open.
    });
    const server = await serve(aguiProxyAgent({ url, idleTimeoutMs: 300 }));
    const { last, snapshot } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: `the upstream AG-UI agent at ${url} sent nothing for 300 ms`,
      code: 'upstream_failed',
    });
    expect(snapshot.messages[0]?.content).toBe('before the stall');
  });

  it('an AG-UI upstream sending one endless data: line ends upstream_failed at the buffer bound', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(start)}\n\n`);
      res.write(`data: ${JSON.stringify(text('before the flood'))}\n\n`);
      res.write('data: ');
      // 8 MiB of one line (twice the bound), then the socket stays open: bounded either way.
      let sent = 0;
      const pump = () => {
        while (sent < 128 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const server = await serve(aguiProxyAgent({ url, idleTimeoutMs: 5_000 }));
    const { last, snapshot } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: `the upstream AG-UI agent at ${url} sent a line or event over ${4 * 1024 * 1024} bytes`,
      code: 'upstream_failed',
    });
    expect(snapshot.messages[0]?.content).toBe('before the flood');
  });

  it('an upstream error page is quoted by its first 500 characters, never read whole', async () => {
    const url = await upstream((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      // A body that never ends: only its first 500 characters are read.
      res.write('<html>'.padEnd(600, '!'));
    });
    const server = await serve(openaiAgent({ baseUrl: url, apiKey: 'k', timeoutMs: 2_000 }));
    const { last } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: `the OpenAI-compatible endpoint ${url} answered 502: ${'<html>'.padEnd(500, '!')}`,
      code: 'upstream_failed',
    });
  });

  it('an OpenAI-compatible upstream that never answers ends upstream_failed after timeoutMs', async () => {
    const url = await upstream(() => {
      // Reads the request, never answers.
    });
    const server = await serve(openaiAgent({ baseUrl: url, apiKey: 'k', timeoutMs: 300 }));
    const { last } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: `the OpenAI-compatible endpoint ${url} did not answer within 300 ms`,
      code: 'upstream_failed',
    });
  });

  it('a stalled upstream with generous upstream timeouts still ends: agent_timeout', async () => {
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(start)}\n\n`);
    });
    const server = await serve(aguiProxyAgent({ url, idleTimeoutMs: 60_000 }), {
      limits: { agentTimeoutMs: 300 },
    });
    const { last } = await runToEnd(server);
    expect(last).toEqual({
      type: 'RUN_ERROR',
      message: 'the agent sent nothing for 300 ms',
      code: 'agent_timeout',
    });
  });
});
