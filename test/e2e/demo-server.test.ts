import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Supervisor, superviseServer } from '../../apps/demo/server/supervisor.js';

/**
 * The demo's API server process without a browser: the supervisor, the chaos endpoints and
 * their answers to bad input, exactly.
 */

let tmp: string;
let api: Supervisor;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'resumable-demo-server-'));
  api = await superviseServer({
    port: 0,
    stdio: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
    env: {
      RESUMABLE_STORE: `sqlite:${join(tmp, 'resumable.db')}`,
      SCRIPTED_TOKENS: '400',
      SCRIPTED_TPS: '40',
      RESUMABLE_AGENT: 'scripted',
      OPENAI_API_KEY: '',
    },
  });
});

afterAll(async () => {
  await api?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const call = async (path: string, init?: RequestInit) => {
  const response = await fetch(`${api.origin}/api/${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const post = (path: string, body: unknown) =>
  call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function startRun() {
  const { status, body } = await post('runs', {
    messages: [{ id: 'u1', role: 'user', content: 'Tell me about resuming.' }],
  });
  expect(status).toBe(201);
  return body as { runId: string; threadId: string; token: string };
}

describe('the demo API server', () => {
  test('state names the process, the agent and the extra delay', async () => {
    expect(await call('__chaos/state')).toEqual({
      status: 200,
      body: { pid: api.pid, startedAt: expect.any(Number), delayMs: 0, agent: 'scripted' },
    });
  });

  test('the agent behind the chaos wrapper still checks its knobs at POST (400, not a 201 that fails)', async () => {
    expect(
      await post('runs', {
        messages: [{ id: 'u1', role: 'user', content: 'x' }],
        forwardedProps: { script: { tokens: 1e9 } },
      }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: 'bad_request',
          message: 'script.tokens must be an integer from 0 to 1000000',
        },
      },
    });
  });

  test('slow takes a delay from 0 to 5000 ms and refuses anything else', async () => {
    expect(await post('__chaos/slow', { delayMs: 120 })).toEqual({
      status: 200,
      body: { delayMs: 120 },
    });
    expect((await call('__chaos/state')).body.delayMs).toBe(120);
    const refused = {
      status: 400,
      body: { error: { code: 'bad_request', message: 'delayMs must be a number from 0 to 5000' } },
    };
    expect(await post('__chaos/slow', { delayMs: -1 })).toEqual(refused);
    expect(await post('__chaos/slow', { delayMs: 5001 })).toEqual(refused);
    expect(await post('__chaos/slow', { delayMs: '10' })).toEqual(refused);
    expect(await post('__chaos/slow', 'not an object')).toEqual(refused);
    expect(await post('__chaos/slow', { delayMs: 0 })).toEqual({
      status: 200,
      body: { delayMs: 0 },
    });
  });

  test('an unknown action or method is a bad request', async () => {
    const unknown = (action: string) => ({
      status: 400,
      body: { error: { code: 'bad_request', message: `unknown chaos action ${action}` } },
    });
    expect(await post('__chaos/explode', {})).toEqual(unknown('explode'));
    expect(await call('__chaos/cut')).toEqual(unknown('cut'));
  });

  test('cut closes the open streams of a run; the client resumes with what it has', async () => {
    const run = await startRun();
    const response = await fetch(`${api.origin}/api/runs/${run.runId}/events?after=0`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    expect(await post('__chaos/cut', { runId: run.runId })).toEqual({
      status: 200,
      body: { dropped: 1 },
    });
    // The body ends without a terminal event: "connection lost, resume".
    const decoder = new TextDecoder();
    let rest = '';
    for (let i = 0; i < 10_000; i++) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).not.toContain('"RUN_FINISHED"');
    expect(await post('__chaos/cut', { runId: run.runId })).toEqual({
      status: 200,
      body: { dropped: 0 },
    });
  });

  test('restart kills the process mid-run; the new one ends the orphaned run agent_lost', async () => {
    const run = await startRun();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pid = api.pid;
    const restarts = api.restarts;
    const ready = api.nextReady();
    expect(await post('__chaos/restart', {})).toEqual({ status: 202, body: { restarting: true } });
    await ready;
    expect(api.pid).not.toBe(pid);
    expect(api.restarts).toBe(restarts + 1);
    const snapshot = await call(`runs/${run.runId}`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    expect(snapshot.status).toBe(200);
    expect(snapshot.body.status).toBe('error');
    expect((snapshot.body.error as { code: string }).code).toBe('agent_lost');
    expect(snapshot.body.lastOffset).toBeGreaterThan(2);
  });
});
