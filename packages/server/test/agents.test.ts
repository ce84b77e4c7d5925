import { HttpAgent } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { EventType } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aguiProxyAgent, type RunningServer, scriptedAgent, startServer } from '../src/index.js';
import { replyTokens, timeLead } from '../src/testing.js';
import { chunk, fakeUpstream, useOpenAIServer } from './fake-upstream.js';
import { bearer, logOf, postRun, prompt, readEvents } from './helpers.js';

describe('@ag-ui/client HttpAgent against POST /runs', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({
      port: 0,
      store: 'memory',
      agent: scriptedAgent({ now: () => new Date('2026-01-02T03:04:05.000Z') }),
    });
  });
  afterAll(() => server.close());

  it('runs a turn with a tool call, then a second turn on the same thread with the token', async () => {
    let token = '';
    const agent = new HttpAgent({
      url: `${server.url}/runs`,
      threadId: crypto.randomUUID(),
      initialMessages: [{ id: 'u1', role: 'user', content: 'What time is it?' }],
      // An AG-UI client learns the thread token from the response header.
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        token = response.headers.get('resumable-token') ?? token;
        return response;
      },
    });
    const first = await agent.runAgent({
      runId: crypto.randomUUID(),
      forwardedProps: { script: { tokens: 12, tokensPerSecond: 0 } },
    });
    const runId = (first.newMessages[0] as { id: string }).id.slice('msg-'.length);
    expect(first.newMessages).toEqual([
      {
        id: `msg-${runId}`,
        role: 'assistant',
        content: replyTokens('What time is it?', 12, 0, timeLead('2026-01-02T03:04:05.000Z')).join(
          '',
        ),
        toolCalls: [
          {
            id: `call-${runId}`,
            type: 'function',
            function: { name: 'get_time', arguments: '{"timezone":"UTC"}' },
          },
        ],
      },
      {
        id: `tool-${runId}`,
        role: 'tool',
        toolCallId: `call-${runId}`,
        content: '{"time":"2026-01-02T03:04:05.000Z"}',
      },
    ]);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    agent.headers = bearer(token);
    agent.addMessage({ id: 'u2', role: 'user', content: 'And now in Markdown' });
    const second = await agent.runAgent({
      runId: crypto.randomUUID(),
      forwardedProps: { script: { tokens: 8, tokensPerSecond: 0 } },
    });
    expect(second.newMessages).toHaveLength(1);
    expect(second.newMessages[0]).toMatchObject({
      role: 'assistant',
      content: replyTokens('And now in Markdown', 8).join(''),
    });
    const history = (await (
      await fetch(`${server.url}/threads/${agent.threadId}/messages`, { headers: bearer(token) })
    ).json()) as { messages: Array<{ id: string; role: string }> };
    expect(history.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
  });
});

describe('openai agent against a fake OpenAI-compatible server', () => {
  const stack = useOpenAIServer();

  it('maps streamed text and tool-call deltas to AG-UI events and sends the right request', async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'Hel' }));
      res.write(chunk({ content: 'lo' }));
      res.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'lookup', arguments: '' },
            },
          ],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }));
      res.write(chunk({}, 'tool_calls'));
      res.end('data: [DONE]\n\n');
    });
    const { json: run } = await postRun(stack.server.url, {
      messages: [
        { id: 's', role: 'system', content: 'Be brief.' },
        { id: 'u1', role: 'user', content: 'Say hello' },
      ],
      tools: [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object' } }],
      context: [{ description: 'city', value: 'Lyon' }],
    });
    const log = await logOf(stack.server, run.runId, run.token);
    const messageId = `msg-${run.runId}`;
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'lo' },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call_1',
        toolCallName: 'lookup',
        parentMessageId: messageId,
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '{"q":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call_1', delta: '"x"}' },
      { type: 'TEXT_MESSAGE_END', messageId },
      { type: 'TOOL_CALL_END', toolCallId: 'call_1' },
      {
        type: 'RUN_FINISHED',
        threadId: run.threadId,
        runId: run.runId,
        outcome: {
          type: 'interrupt',
          interrupts: [
            {
              id: 'tool-call_1',
              reason: 'client_tool',
              toolCallId: 'call_1',
              message: 'Run lookup in the page',
            },
          ],
        },
      },
    ]);
    const request = stack.upstream.requests[stack.upstream.requests.length - 1]!;
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toEqual({
      model: 'fake-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Context:\n- city: Lyon' },
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'lookup', description: 'Looks up', parameters: { type: 'object' } },
        },
      ],
    });
  });

  it('an error answer ends the run with RUN_ERROR upstream_failed and its message', async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"error":{"message":"bad key"}}');
    });
    const { json: run } = await postRun(stack.server.url, prompt('hello'));
    const log = await logOf(stack.server, run.runId, run.token);
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      {
        type: 'RUN_ERROR',
        message: `the OpenAI-compatible endpoint ${stack.upstream.url}/v1 answered 401: bad key`,
        code: 'upstream_failed',
      },
    ]);
  });

  it('a stream that stops before finishing ends with upstream_failed', async () => {
    stack.upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(chunk({ content: 'Hal' }));
    });
    const { json: run } = await postRun(stack.server.url, prompt('hello'));
    const log = await logOf(stack.server, run.runId, run.token);
    expect(log.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'RUN_ERROR',
    ]);
    expect(log[3]).toEqual({
      type: 'RUN_ERROR',
      message: `the OpenAI-compatible endpoint ${stack.upstream.url}/v1 ended its stream before finishing`,
      code: 'upstream_failed',
    });
  });
});

describe('agui proxy agent options', () => {
  it('no url and no AGUI_UPSTREAM_URL: a RangeError at once, as every bad option', () => {
    const saved = process.env.AGUI_UPSTREAM_URL;
    delete process.env.AGUI_UPSTREAM_URL;
    try {
      expect(() => aguiProxyAgent({})).toThrow(
        new RangeError('aguiProxyAgent needs a url (or AGUI_UPSTREAM_URL)'),
      );
      expect(() => aguiProxyAgent({})).toThrow(RangeError);
    } finally {
      if (saved !== undefined) process.env.AGUI_UPSTREAM_URL = saved;
    }
  });
});

describe('agui proxy agent against a fake AG-UI upstream (@ag-ui/encoder)', () => {
  let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
  let server: RunningServer;
  const encoder = new EventEncoder();
  beforeAll(async () => {
    upstream = await fakeUpstream();
    server = await startServer({
      port: 0,
      store: 'memory',
      agent: aguiProxyAgent({ url: `${upstream.url}/agent`, headers: { 'X-Api-Key': 'k' } }),
    });
  });
  afterAll(async () => {
    await server.close();
    upstream.server.close();
  });

  const events = (threadId: string, runId: string) => [
    { type: EventType.RUN_STARTED, threadId: 'upstream-thread', runId: 'upstream-run' },
    { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'Bon' },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'jour' },
    { type: EventType.TEXT_MESSAGE_END, messageId: 'm1' },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ];

  it('stores what the upstream streams, with offsets and our run ids', async () => {
    upstream.handle((_req, body, res) => {
      const input = JSON.parse(body) as { threadId: string; runId: string };
      res.writeHead(200, { 'Content-Type': encoder.getContentType() });
      for (const event of events(input.threadId, input.runId))
        res.write(encoder.encode(event as never));
      res.end();
    });
    const { json: run } = await postRun(server.url, prompt('Say bonjour'));
    const read = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(read.frames.map((f) => f.offset)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(read.frames.map((f) => JSON.parse(f.json))).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Bon' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'jour' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId },
    ]);
    const request = upstream.requests[upstream.requests.length - 1]!;
    expect(request.headers.accept).toBe('text/event-stream');
    expect(request.headers['x-api-key']).toBe('k');
    expect(request.body).toEqual({
      messages: [{ id: 'u1', role: 'user', content: 'Say bonjour' }],
      tools: [],
      context: [],
      threadId: run.threadId,
      runId: run.runId,
      state: {},
    });
  });

  it('an upstream that drops mid-run ends the run with RUN_ERROR upstream_failed', async () => {
    upstream.handle((_req, body, res) => {
      const input = JSON.parse(body) as { threadId: string; runId: string };
      res.writeHead(200, { 'Content-Type': encoder.getContentType() });
      for (const event of events(input.threadId, input.runId).slice(0, 3)) {
        res.write(encoder.encode(event as never));
      }
      // The connection dies mid-run: no terminal event, not even a clean end.
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { json: run } = await postRun(server.url, prompt('drop'));
    const log = await logOf(server, run.runId, run.token);
    expect(log.slice(0, 3)).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Bon' },
    ]);
    expect(log).toHaveLength(4);
    expect(log[3]).toMatchObject({ type: 'RUN_ERROR', code: 'upstream_failed' });
    expect(log[3]!.message).toMatch(
      new RegExp(
        `^the upstream AG-UI agent at ${upstream.url}/agent dropped the connection mid-run: terminated`,
      ),
    );
    const snapshot = await (
      await fetch(`${server.url}/runs/${run.runId}`, { headers: bearer(run.token) })
    ).json();
    expect(snapshot).toMatchObject({
      status: 'error',
      messages: [{ id: 'm1', role: 'assistant', content: 'Bon', ended: 'error' }],
    });
  });

  it('an upstream that ends cleanly before its terminal event, or is unreachable, fails clearly', async () => {
    upstream.handle((_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': encoder.getContentType() });
      res.end(
        encoder.encode({
          type: EventType.TEXT_MESSAGE_START,
          messageId: 'm1',
          role: 'assistant',
        } as never),
      );
    });
    const { json: run } = await postRun(server.url, prompt('short'));
    const log = await logOf(server, run.runId, run.token);
    expect(log[log.length - 1]).toEqual({
      type: 'RUN_ERROR',
      message: `the upstream AG-UI agent at ${upstream.url}/agent ended its stream before RUN_FINISHED (the connection dropped mid-run)`,
      code: 'upstream_failed',
    });

    const dead = await startServer({
      port: 0,
      store: 'memory',
      agent: aguiProxyAgent({ url: 'http://127.0.0.1:9/agent' }),
    });
    try {
      const { json: r } = await postRun(dead.url, prompt('nobody home'));
      const l = await logOf(dead, r.runId, r.token);
      expect(l.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
      expect(l[1]).toMatchObject({ code: 'upstream_failed' });
      expect(l[1]!.message).toMatch(
        /^the upstream AG-UI agent at http:\/\/127\.0\.0\.1:9\/agent is unreachable: fetch failed/,
      );
    } finally {
      await dead.close();
    }
  });
});
