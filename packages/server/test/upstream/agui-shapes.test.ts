import { describe, expect, it } from 'vitest';
import { readEvents } from '../helpers.js';
import {
  aguiStack,
  failed,
  frame,
  hostileUpstream,
  type Respond,
  runToEnd,
  socketsClosed,
} from './harness.js';

/** An AG-UI upstream answering with `respond`, and a server proxying to it. */
const agui = (respond: Respond, idleTimeoutMs = 1_000) =>
  aguiStack(respond, { timeoutMs: 1_000, idleTimeoutMs });

/** An upstream that streams these events (raw values), then ends. */
const streaming = (...events: unknown[]) =>
  agui((_req, _body, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.end(events.map(frame).join(''));
  });

const text = (delta: unknown, messageId: unknown = 'm1') => ({
  type: 'TEXT_MESSAGE_CONTENT',
  messageId,
  delta,
});
const opened = { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' };

describe('hostile AG-UI upstream', () => {
  it('unknown event types are dropped (and logged); its own run ids, even objects, are replaced', async () => {
    const { server } = await streaming(
      { type: 'RUN_STARTED', threadId: { not: 'an id' }, runId: ['x'] },
      opened,
      { type: 'FUTURE_THING', payload: 1 },
      { type: '__proto__' },
      text('Bon'),
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'RUN_FINISHED', threadId: 7, runId: null },
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      opened,
      text('Bon'),
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId },
    ]);
    expect(server.logs).toEqual([
      `run ${run.runId}: dropped an event the agent sent: unknown event type "FUTURE_THING"`,
      `run ${run.runId}: dropped an event the agent sent: unknown event type "__proto__"`,
    ]);
  });

  it("the upstream's SSE id: lines (objects, huge numbers) are not offsets: ours are 1..N", async () => {
    const { server } = await agui((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`id: {"offset":{}}\n${frame(opened)}`);
      res.write(`id: 99999999999999999999\n${frame(text('Bon'))}`);
      res.end(`id: -1\n${frame({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' })}`);
    });
    const { run } = await runToEnd(server);
    const read = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: { Authorization: `Bearer ${run.token}` },
    });
    expect(read.frames.map((f) => [f.offset, JSON.parse(f.json).type])).toEqual([
      [1, 'RUN_STARTED'],
      [2, 'TEXT_MESSAGE_START'],
      [3, 'TEXT_MESSAGE_CONTENT'],
      [4, 'RUN_FINISHED'],
    ]);
  });

  it('a flood of unknown types: ten are logged, the rest skipped, the run goes on', async () => {
    const future = Array.from({ length: 500 }, (_, i) => ({ type: `FUTURE_${i}` }));
    const { server } = await streaming(opened, ...future, text('Bon'), {
      type: 'RUN_FINISHED',
      threadId: 't',
      runId: 'r',
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      opened,
      text('Bon'),
      { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId },
    ]);
    expect(server.logs).toEqual(
      future
        .slice(0, 10)
        .map(
          (e) =>
            `run ${run.runId}: dropped an event the agent sent: unknown event type "${e.type}"`,
        ),
    );
  });

  it('only unknown types, forever: a stall, upstream_failed after idleTimeoutMs', async () => {
    const { upstream, server, what } = await agui((req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(frame(opened));
      const timer = setInterval(() => res.write(frame({ type: 'HEARTBEAT_OF_SORTS' })), 20);
      req.socket.once('close', () => clearInterval(timer));
    }, 300);
    const { run, log, elapsed, endedAt } = await runToEnd(server);
    const [started, error] = failed(run, `${what} sent only events of unknown types for 300 ms`);
    expect(log).toEqual([started, opened, error]);
    expect(elapsed).toBeLessThan(3_000);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('data: null is not an event: upstream_failed, not a crash of the agent', async () => {
    const { server, what } = await streaming(null);
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(run, `${what} sent an event that is not AG-UI: an event must be a JSON object`),
    );
  });

  it('an id that is an object is not dropped silently mid-message: upstream_failed', async () => {
    const { server, what } = await streaming(opened, text('Bon'), text('jour', { id: 'm1' }));
    const { run, log } = await runToEnd(server);
    const [started, error] = failed(
      run,
      `${what} sent an event that is not AG-UI: TEXT_MESSAGE_CONTENT needs "messageId" (string), got {"id":"m1"}`,
    );
    expect(log).toEqual([started, opened, text('Bon'), error]);
  });

  it("the upstream's RUN_ERROR code is its word, not ours: upstream_failed quoting it", async () => {
    const { server, what } = await streaming(opened, text('Bon'), {
      type: 'RUN_ERROR',
      message: 'model\noverloaded',
      code: 'thread_not_found',
    });
    const { run, log } = await runToEnd(server);
    const [started, error] = failed(run, `${what} failed: model overloaded (thread_not_found)`);
    expect(log).toEqual([started, opened, text('Bon'), error]);
  });

  it('a RUN_FINISHED whose interrupts could never be answered: upstream_failed, not stored', async () => {
    const { server, what } = await streaming(opened, {
      type: 'RUN_FINISHED',
      threadId: 't',
      runId: 'r',
      outcome: { type: 'interrupt', interrupts: 'nope' },
    });
    const { run, log } = await runToEnd(server);
    const [started, error] = failed(
      run,
      `${what} sent a RUN_FINISHED that cannot be answered: outcome.interrupts must be a non-empty array`,
    );
    expect(log).toEqual([started, opened, error]);
    // Stored, `interrupts: "nope"` answered 500 to the run, its thread and every new prompt.
    const headers = { Authorization: `Bearer ${run.token}`, 'Content-Type': 'application/json' };
    expect((await fetch(`${server.url}/runs/${run.runId}`, { headers })).status).toBe(200);
    expect((await fetch(`${server.url}/threads/${run.threadId}`, { headers })).status).toBe(200);
    const next = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        threadId: run.threadId,
        messages: [{ id: 'u2', role: 'user', content: 'again' }],
      }),
    });
    expect(next.status).toBe(201);
  });

  it('a 200 HTML page is not a stream: upstream_failed at once', async () => {
    const { server, what } = await agui((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<h1>It works!</h1>');
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(run, `${what} answered 200 with text/html, not an event stream: <h1>It works!</h1>`),
    );
  });

  it('a redirect is not followed: the conversation and its API key stay home', async () => {
    const elsewhere = await hostileUpstream((_req, _body, res) => res.end());
    const { server, what } = await agui((_req, _body, res) => {
      res.writeHead(307, { Location: `${elsewhere.url}/steal` });
      res.end();
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(run, `${what} answered 307, a redirect to ${elsewhere.url}/steal (not followed)`),
    );
    expect(elsewhere.bodies).toEqual([]);
  });

  it('RUN_FINISHED then more events: the rest is never read, the socket is closed', async () => {
    const { upstream, server } = await agui((req, body, res) => {
      const { threadId, runId } = JSON.parse(body) as { threadId: string; runId: string };
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(frame(opened) + frame({ type: 'RUN_FINISHED', threadId, runId }));
      // …and keeps talking after its terminal event, never ending the stream.
      const timer = setInterval(() => {
        if (res.destroyed) clearInterval(timer);
        else res.write(frame(text('after the end')));
      }, 20);
      req.socket.once('close', () => clearInterval(timer));
    });
    const { run, log, endedAt } = await runToEnd(server);
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      opened,
      { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId },
    ]);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });
});
