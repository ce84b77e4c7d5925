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
  const nameOf = async (env: Record<string, string>) => (await pickAgent(env)).name;
  it('is scripted without keys, and names what it chose', async () => {
    expect(await nameOf({})).toBe('scripted');
    expect(await nameOf({ OPENAI_API_KEY: 'k' })).toBe('openai gpt-4o-mini');
    expect(await nameOf({ ANTHROPIC_API_KEY: 'k' })).toBe('anthropic claude-haiku-4-5');
    expect(await nameOf({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-x' })).toBe(
      'anthropic claude-x',
    );
    // Both keys: OpenAI, unless RESUMABLE_AGENT says otherwise.
    expect(await nameOf({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toBe(
      'openai gpt-4o-mini',
    );
    expect(
      await nameOf({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', RESUMABLE_AGENT: 'anthropic' }),
    ).toBe('anthropic claude-haiku-4-5');
    expect(await nameOf({ OPENAI_API_KEY: 'k', RESUMABLE_AGENT: 'scripted' })).toBe('scripted');
    await expect(pickAgent({ RESUMABLE_AGENT: 'gemini' })).rejects.toThrow(
      'RESUMABLE_AGENT=gemini: use scripted, openai or anthropic',
    );
  });
});

interface ProviderCase {
  key: string;
  /** The demo's environment, given the fake endpoint's URL. */
  env: (url: string) => Record<string, string>;
  /** What the fake endpoint streams back, in the provider's own SSE format. */
  answer: (res: ServerResponse) => void;
  prompt: string;
  deltas: string[];
  usage: Record<string, unknown>;
  request: { path: string; header: [string, string]; body: Record<string, unknown> };
}

const openaiChunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
  sse({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-test',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });

const CASES: ProviderCase[] = [
  {
    key: 'OPENAI_API_KEY',
    env: (url) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url, OPENAI_MODEL: 'gpt-test' }),
    answer: (res) => {
      res.write(openaiChunk({ role: 'assistant', content: '' }));
      res.write(openaiChunk({ content: 'Hel' }));
      res.write(openaiChunk({ content: 'lo!' }));
      res.write(openaiChunk({}, 'stop'));
      res.write(
        openaiChunk({}, null, { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }),
      );
      res.end('data: [DONE]\n\n');
    },
    prompt: 'Say hello',
    deltas: ['Hel', 'lo!'],
    usage: {
      provider: 'openai',
      model: 'gpt-test',
      inputTokens: 9,
      outputTokens: 2,
      totalTokens: 11,
      reasoningTokens: 0,
      cachedInputTokens: 0,
    },
    request: {
      path: '/v1/chat/completions',
      header: ['authorization', 'Bearer sk-test'],
      body: {
        model: 'gpt-test',
        max_tokens: 4096,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: 'Say hello' },
        ],
        stream: true,
        stream_options: { include_usage: true },
      },
    },
  },
  {
    key: 'ANTHROPIC_API_KEY',
    env: (url) => ({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_MODEL: 'claude-test',
    }),
    answer: (res) => {
      const message = {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      };
      const events: unknown[] = [
        { type: 'message_start', message },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        ...['Bon', 'jour'].map((text) => ({
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text },
        })),
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 2 },
        },
        { type: 'message_stop' },
      ];
      for (const event of events) res.write(sse(event, (event as { type: string }).type));
      res.end();
    },
    prompt: 'Say hello in French',
    deltas: ['Bon', 'jour'],
    usage: {
      provider: 'anthropic',
      model: 'claude-test',
      inputTokens: 9,
      outputTokens: 2,
      totalTokens: 11,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
    },
    request: {
      path: '/v1/messages',
      header: ['x-api-key', 'sk-ant-test'],
      body: {
        model: 'claude-test',
        max_tokens: 4096,
        system: [{ type: 'text', text: SYSTEM }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello in French' }] }],
        stream: true,
      },
    },
  },
];

for (const c of CASES) {
  describe(`${c.key}: the AI SDK provider, streamed into a resumable run`, () => {
    let fake: Awaited<ReturnType<typeof fakeProvider>>;
    let server: RunningServer;
    beforeAll(async () => {
      fake = await fakeProvider(c.answer);
      server = await startServer({
        port: 0,
        store: 'memory',
        agent: (await pickAgent(c.env(fake.url))).agent,
      });
    });
    afterAll(async () => {
      await server.close();
      fake.server.close();
    });

    it('sends the prompt with the key and stores the exact AG-UI log and snapshot', async () => {
      const { run, log, snapshot } = await runOnce(server, c.prompt);
      const ids = { runId: run.runId, threadId: run.threadId };
      expect(log).toEqual(textLog(ids, c.deltas, c.usage));
      expect(snapshot).toEqual(finishedSnapshot(ids, c.deltas.length + 4, c.deltas.join('')));
      expect(fake.seen).toHaveLength(1);
      const [seen] = fake.seen;
      expect(seen!.url).toBe(c.request.path);
      expect(seen!.headers[c.request.header[0]]).toBe(c.request.header[1]);
      expect(seen!.body).toEqual(c.request.body);
    });
  });
}
