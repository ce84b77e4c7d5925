import { spawnSync } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import {
  type RedisServer,
  startRedisServer,
} from '../../packages/server/test/redis/redis-server.js';
import { type StartedRun, serverText, waitForRunEnd } from '../e2e/demo-page.js';
import {
  anthropicAnswer,
  type FakeProvider,
  fakeProvider,
  openaiAnswer,
} from '../e2e/fake-providers.js';
import { awaitBuild } from '../shared-builds.js';
import { type NextApp, startNextApp } from './next-app.js';

/**
 * The example's route handler and its choice of agent without a browser, each case on its
 * own `next start` of the run's one build: the store named by `RESUMABLE_STORE`
 * (`redis://`), and a real model through the AI SDK when `OPENAI_API_KEY` or
 * `ANTHROPIC_API_KEY` is set — the real providers, against fake endpoints on 127.0.0.1.
 */

/** A short answer, all at once. */
const SCRIPT = { tokens: 30, tokensPerSecond: 0 };

const cleanups: (() => Promise<unknown> | unknown)[] = [];

beforeAll(() => awaitBuild(inject('sharedBuilds'), 'nextjs', 8 * 60_000));

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(env: Record<string, string>): Promise<NextApp> {
  const app = await startNextApp({ script: SCRIPT, env });
  cleanups.push(() => app.close());
  return app;
}

/** `POST /api/runs` with one user message, straight to the app; waits until the run ends. */
async function runOnce(app: NextApp, prompt: string) {
  const response = await fetch(`${app.api.origin}/api/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', content: prompt }] }),
  });
  expect(response.status).toBe(201);
  const run = (await response.json()) as StartedRun;
  return { run, snapshot: await waitForRunEnd(app, run) };
}

/** The `id:` of each event the app streams after `after`. */
async function offsetsAfter(app: NextApp, run: StartedRun, after: number): Promise<number[]> {
  const response = await fetch(`${app.api.origin}/api/runs/${run.runId}/events?after=${after}`, {
    headers: { Authorization: `Bearer ${run.token}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const text = await response.text();
  return [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
}

describe('RESUMABLE_STORE', () => {
  test('redis://: the runs are kept in that Redis, and streamed after any offset', async () => {
    const redis: RedisServer = await startRedisServer();
    cleanups.push(() => redis.dispose());
    const app = await start({ RESUMABLE_STORE: redis.url });

    const { run, snapshot } = await runOnce(app, 'Where are my runs kept?');
    expect(snapshot.status).toBe('finished');
    expect(serverText(snapshot).length).toBeGreaterThan(0);
    const rest = Array.from({ length: snapshot.lastOffset - 3 }, (_, i) => i + 4);
    expect(await offsetsAfter(app, run, 3)).toEqual(rest);
    // The run's record and its event stream are in that Redis (the store's keys: a run's
    // are under its thread's hash tag).
    const runKey = `resumable:{${run.threadId}}:run:${run.runId}`;
    const scan = spawnSync(
      'redis-cli',
      ['-p', String(redis.port), '--scan', '--pattern', `${runKey}*`],
      { encoding: 'utf8', timeout: 10_000 },
    );
    expect(scan.stdout.trim().split('\n')).toEqual(
      expect.arrayContaining([runKey, `${runKey}:events`]),
    );
  });
});

interface ModelCase {
  key: string;
  env: (fake: FakeProvider) => Record<string, string>;
  answer: (res: ServerResponse) => void;
  text: string;
  request: { path: string; header: [string, string]; model: string };
}

const MODELS: ModelCase[] = [
  {
    key: 'OPENAI_API_KEY',
    env: (fake) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url }),
    answer: openaiAnswer(['Hel', 'lo!']),
    text: 'Hello!',
    request: {
      path: '/v1/chat/completions',
      header: ['authorization', 'Bearer sk-test'],
      model: 'gpt-4o-mini',
    },
  },
  {
    key: 'ANTHROPIC_API_KEY',
    env: (fake) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: fake.url }),
    answer: anthropicAnswer(['Bon', 'jour']),
    text: 'Bonjour',
    request: {
      path: '/v1/messages',
      header: ['x-api-key', 'sk-ant-test'],
      model: 'claude-haiku-4-5',
    },
  },
];

describe.each(MODELS)('$key set', (model) => {
  test('the model answers through the AI SDK, with the key and the default model', async () => {
    const fake = await fakeProvider(model.answer);
    cleanups.push(() => new Promise((resolve) => fake.server.close(resolve)));
    const app = await start(model.env(fake));

    const { snapshot } = await runOnce(app, 'Say hello');
    expect(snapshot.status).toBe('finished');
    expect(serverText(snapshot)).toBe(model.text);
    expect(fake.seen).toHaveLength(1);
    const [seen] = fake.seen;
    expect(seen!.url).toBe(model.request.path);
    expect(seen!.headers[model.request.header[0]]).toBe(model.request.header[1]);
    expect(seen!.body.model).toBe(model.request.model);
  });
});
