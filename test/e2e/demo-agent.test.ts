import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningServer, startServer } from '@resumable/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickAgent } from '../../apps/demo/server/agent.js';

/**
 * The demo's model choice (apps/demo/server/agent.ts) with the real AI SDK providers,
 * against fake OpenAI and Anthropic endpoints on 127.0.0.1: no key, no network.
 */

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

async function fakeProvider(
  answer: (res: ServerResponse) => void,
): Promise<{ url: string; server: Server; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server, seen };
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** The exact log of a one-message text answer. */
function textLog(
  ids: { runId: string; threadId: string },
  deltas: string[],
  usage: Record<string, unknown>,
) {
  const messageId = `msg-${ids.runId}`;
  return [
    { type: 'RUN_STARTED', ...ids },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta })),
    { type: 'TEXT_MESSAGE_END', messageId },
    { type: 'RUN_FINISHED', ...ids, outcome: { type: 'success' }, usage: [usage] },
  ];
}

function finishedSnapshot(
  ids: { runId: string; threadId: string },
  lastOffset: number,
  content: string,
) {
  return {
    ...ids,
    status: 'finished',
    lastOffset,
    messages: [{ id: `msg-${ids.runId}`, role: 'assistant', content }],
    outcome: { type: 'success' },
  };
}

const SYSTEM = 'You are the assistant of a demo chat. Answer in Markdown.';

async function runOnce(server: RunningServer, text: string) {
  const post = await fetch(`${server.url}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', content: text }] }),
  });
  const run = (await post.json()) as { runId: string; threadId: string; token: string };
  await server.manager.waitForRun(run.runId);
  const snapshot = await fetch(`${server.url}/runs/${run.runId}`, {
    headers: { Authorization: `Bearer ${run.token}` },
  });
  const events = await fetch(`${server.url}/runs/${run.runId}/events`, {
    headers: { Authorization: `Bearer ${run.token}` },
  });
  const log = (await events.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
  return { run, log, snapshot: (await snapshot.json()) as Record<string, unknown> };
}

describe('the demo picks its agent from the environment', () => {
  it('is scripted without keys, and names what it chose', () => {
    expect(pickAgent({}).name).toBe('scripted');
    expect(pickAgent({ OPENAI_API_KEY: 'k' }).name).toBe('openai gpt-4o-mini');
    expect(pickAgent({ ANTHROPIC_API_KEY: 'k' }).name).toBe('anthropic claude-haiku-4-5');
    expect(pickAgent({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-x' }).name).toBe(
      'anthropic claude-x',
    );
    // Both keys: OpenAI, unless RESUMABLE_AGENT says otherwise.
    expect(pickAgent({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }).name).toBe(
      'openai gpt-4o-mini',
    );
    expect(
      pickAgent({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', RESUMABLE_AGENT: 'anthropic' }).name,
    ).toBe('anthropic claude-haiku-4-5');
    expect(pickAgent({ OPENAI_API_KEY: 'k', RESUMABLE_AGENT: 'scripted' }).name).toBe('scripted');
    expect(() => pickAgent({ RESUMABLE_AGENT: 'gemini' })).toThrow(
      'RESUMABLE_AGENT=gemini: use scripted, openai or anthropic',
    );
  });
});

describe('OPENAI_API_KEY: the AI SDK OpenAI provider, streamed into a resumable run', () => {
  let fake: Awaited<ReturnType<typeof fakeProvider>>;
  let server: RunningServer;
  beforeAll(async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      sse({
        id: 'c1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'gpt-test',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    fake = await fakeProvider((res) => {
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'Hel' }));
      res.write(chunk({ content: 'lo!' }));
      res.write(chunk({}, 'stop'));
      res.write(
        sse({
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-test',
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
        }),
      );
      res.end('data: [DONE]\n\n');
    });
    const { agent } = pickAgent({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: fake.url,
      OPENAI_MODEL: 'gpt-test',
    });
    server = await startServer({ port: 0, store: 'memory', agent });
  });
  afterAll(async () => {
    await server.close();
    fake.server.close();
  });

  it('sends the prompt with the key and stores the exact AG-UI log', async () => {
    const { run, log, snapshot } = await runOnce(server, 'Say hello');
    const ids = { runId: run.runId, threadId: run.threadId };
    expect(log).toEqual(
      textLog(ids, ['Hel', 'lo!'], {
        provider: 'openai',
        model: 'gpt-test',
        inputTokens: 9,
        outputTokens: 2,
        totalTokens: 11,
        reasoningTokens: 0,
        cachedInputTokens: 0,
      }),
    );
    expect(snapshot).toEqual(finishedSnapshot(ids, 6, 'Hello!'));
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.url).toBe('/v1/chat/completions');
    expect(fake.seen[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(fake.seen[0]!.body).toEqual({
      model: 'gpt-test',
      max_tokens: 4096,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Say hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe('ANTHROPIC_API_KEY: the AI SDK Anthropic provider, streamed into a resumable run', () => {
  let fake: Awaited<ReturnType<typeof fakeProvider>>;
  let server: RunningServer;
  beforeAll(async () => {
    fake = await fakeProvider((res) => {
      res.write(
        sse(
          {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'claude-test',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 9, output_tokens: 1 },
            },
          },
          'message_start',
        ),
      );
      res.write(
        sse(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
      );
      for (const text of ['Bon', 'jour']) {
        res.write(
          sse(
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
            'content_block_delta',
          ),
        );
      }
      res.write(sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'));
      res.write(
        sse(
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 2 },
          },
          'message_delta',
        ),
      );
      res.end(sse({ type: 'message_stop' }, 'message_stop'));
    });
    const { agent } = pickAgent({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_MODEL: 'claude-test',
    });
    server = await startServer({ port: 0, store: 'memory', agent });
  });
  afterAll(async () => {
    await server.close();
    fake.server.close();
  });

  it('sends the prompt with the key and stores the exact AG-UI log', async () => {
    const { run, log, snapshot } = await runOnce(server, 'Say hello in French');
    const ids = { runId: run.runId, threadId: run.threadId };
    expect(log).toEqual(
      textLog(ids, ['Bon', 'jour'], {
        provider: 'anthropic',
        model: 'claude-test',
        inputTokens: 9,
        outputTokens: 2,
        totalTokens: 11,
        cachedInputTokens: 0,
        cacheWriteInputTokens: 0,
      }),
    );
    expect(snapshot).toEqual(finishedSnapshot(ids, 6, 'Bonjour'));
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]!.url).toBe('/v1/messages');
    expect(fake.seen[0]!.headers['x-api-key']).toBe('sk-ant-test');
    expect(fake.seen[0]!.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      system: [{ type: 'text', text: SYSTEM }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello in French' }] }],
      stream: true,
    });
  });
});
