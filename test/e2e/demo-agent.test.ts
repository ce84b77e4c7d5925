import type { ServerResponse } from 'node:http';
import { type RunningServer, startServer } from '@resumable/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickAgent } from '../../apps/demo/server/agent.js';
import { anthropicAnswer, fakeProvider, openaiAnswer } from './fake-providers.js';

/**
 * The demo's model choice (apps/demo/server/agent.ts) with the real AI SDK providers,
 * against fake OpenAI and Anthropic endpoints on 127.0.0.1: no key, no network.
 */

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

const CASES: ProviderCase[] = [
  {
    key: 'OPENAI_API_KEY',
    env: (url) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url, OPENAI_MODEL: 'gpt-test' }),
    answer: openaiAnswer(['Hel', 'lo!']),
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
    answer: anthropicAnswer(['Bon', 'jour']),
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
