import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AGUIEvent, EventType, type RunAgentInput } from '@resumable/protocol';
import type { Agent } from '@resumable/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHAOS_PREFIX, createChaos } from '../../apps/demo/server/chaos.js';
import { type Supervisor, superviseServer } from '../../apps/demo/server/supervisor.js';

/**
 * The demo's API server process without a browser: the supervisor, the chaos endpoints and
 * their answers to bad input, exactly. And `pnpm dev` as a terminal shows it: nothing a
 * newcomer cannot act on, a port in use said in words.
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

  test('slow from an event type: the delay starts at the next event of that type, the type checked', async () => {
    expect(await post('__chaos/slow', { delayMs: 40 })).toEqual({
      status: 200,
      body: { delayMs: 40 },
    });
    expect(await post('__chaos/slow', { delayMs: 1000, fromEvent: 'TOOL_CALL_ARGS' })).toEqual({
      status: 200,
      body: { delayMs: 40, next: { delayMs: 1000, fromEvent: 'TOOL_CALL_ARGS' } },
    });
    // Not yet: the current delay stays until such an event comes.
    expect((await call('__chaos/state')).body.delayMs).toBe(40);
    const refused = {
      status: 400,
      body: {
        error: {
          code: 'bad_request',
          message: 'fromEvent must be an AG-UI event type, such as TOOL_CALL_ARGS',
        },
      },
    };
    expect(await post('__chaos/slow', { delayMs: 10, fromEvent: 'TOOL_CALL' })).toEqual(refused);
    expect(await post('__chaos/slow', { delayMs: 10, fromEvent: 7 })).toEqual(refused);
    // A plain slow drops the switch.
    expect(await post('__chaos/slow', { delayMs: 0 })).toEqual({
      status: 200,
      body: { delayMs: 0 },
    });
  });

  test('slow from an event type: the delay switches as the first such event passes, once', async () => {
    const chaos = createChaos({ dropConnections: () => 0, agent: 'scripted', exit: () => {} });
    const events: AGUIEvent[] = [
      { type: EventType.RUN_STARTED, threadId: 't', runId: 'r' },
      { type: EventType.TOOL_CALL_START, toolCallId: 'c', toolCallName: 'search_docs' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c', delta: '{' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: 'c', delta: '}' },
    ];
    const agent: Agent = async function* () {
      yield* events;
    };
    const slow = (body: unknown) =>
      chaos.fetch(
        new Request(`http://127.0.0.1${CHAOS_PREFIX}slow`, {
          method: 'POST',
          body: JSON.stringify(body),
        }),
      );
    expect((await slow({ delayMs: 1 })).status).toBe(200);
    expect((await slow({ delayMs: 20, fromEvent: 'TOOL_CALL_ARGS' })).status).toBe(200);
    const seen: string[] = [];
    const input = { threadId: 't', runId: 'r', messages: [] } as unknown as RunAgentInput;
    for await (const event of chaos.slow(agent)(input, { signal: new AbortController().signal })) {
      seen.push(`${event.type} after ${chaos.delayMs} ms`);
    }
    expect(seen).toEqual([
      'RUN_STARTED after 1 ms',
      'TOOL_CALL_START after 1 ms',
      'TOOL_CALL_ARGS after 20 ms',
      'TOOL_CALL_ARGS after 20 ms',
    ]);
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

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `pnpm dev` (the root script's command), its output collected, stdout and stderr apart. */
function pnpmDev(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=@resumable/source', '--import', 'tsx', 'apps/demo/server/dev.ts'],
    {
      cwd: repoRoot,
      // As `pnpm dev` runs it (the port message names the script); the store in memory.
      env: { ...process.env, npm_lifecycle_event: 'dev', RESUMABLE_STORE: 'memory', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, out, exited };
}

/** Resolves once `text()` holds `pattern`'s match; fails after `timeoutMs` with the output. */
async function waitForOutput(text: () => string, pattern: RegExp, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(text());
    if (match) return match;
    if (Date.now() > until) throw new Error(`no ${pattern} after ${timeoutMs} ms in:\n${text()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A port some other process holds (an ephemeral one, held by this test). */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as { port: number }).port, server };
}

/** What `pnpm dev` says, word for word, when `port` is taken. */
const portInUse = (port: number, whose: string, variable: string) =>
  `\nPort ${port} (${whose}) is already in use — another \`pnpm dev\` or \`pnpm preview\` still running?\n` +
  `  Free it: stop that process (\`lsof -i :${port}\` or \`ss -ltnp 'sport = :${port}'\` shows which one).\n` +
  `  Or use another port: ${variable}=${port + 1} pnpm dev\n\n`;

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('pnpm dev in a terminal', () => {
  test('prints the URL to open and no warning a newcomer cannot act on (the client address is set)', async () => {
    const dev = pnpmDev({ PORT: '0', WEB_PORT: '0' });
    children.push(dev.child);
    const [, apiOrigin] = await waitForOutput(
      () => dev.out.stdout,
      /\(API on (http:\/\/127\.0\.0\.1:\d+)\/api, proxied under \/api; Ctrl-C stops both\)/,
    );
    // A run started and read: each request's client address is looked up.
    const started = await fetch(`${apiOrigin}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u1', role: 'user', content: 'Hello' }] }),
    });
    expect(started.status).toBe(201);
    const run = (await started.json()) as { runId: string; token: string };
    const events = await fetch(`${apiOrigin}/api/runs/${run.runId}/events?after=0`, {
      headers: { authorization: `Bearer ${run.token}` },
    });
    expect(events.status).toBe(200);
    await events.body!.cancel();
    dev.child.kill('SIGINT');
    expect(await dev.exited).toBe(0);
    const all = dev.out.stdout + dev.out.stderr;
    // Before the demo passed the socket on, every `pnpm dev` printed "[resumable] a request
    // came with no client address (set clientAddress on this host)…".
    expect(all).not.toContain('client address');
    expect(dev.out.stderr).toBe('');
    expect(dev.out.stdout).toMatch(/\n {2}Resumable demo ready\n\n {2}➜ {2}Open http:\/\/\S+\/\n/);
    // Vite may still log its dependency scan between the two.
    const lines = dev.out.stdout.split('\n');
    expect(lines).toContain('Stopping the demo…');
    expect(lines.slice(-2)).toEqual(['Stopped.', '']);
  });

  test("the API server's port in use: which port, how to free or change it, and no stack trace", async () => {
    const { port, server } = await busyPort();
    try {
      const dev = pnpmDev({ PORT: String(port), WEB_PORT: '0' });
      children.push(dev.child);
      expect(await dev.exited).toBe(1);
      expect(dev.out.stderr).toBe(portInUse(port, 'the API server', 'PORT'));
      expect(dev.out.stdout).toBe('');
    } finally {
      server.close();
    }
  });

  test("the web app's port in use: said the same way, and the API server it started is stopped", async () => {
    const { port, server } = await busyPort();
    try {
      const dev = pnpmDev({ PORT: '0', WEB_PORT: String(port) });
      children.push(dev.child);
      expect(await dev.exited).toBe(1);
      expect(dev.out.stderr).toBe(portInUse(port, 'the web app', 'WEB_PORT'));
      const [, apiOrigin] = /API server listening on (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(
        dev.out.stdout,
      )!;
      await expect(fetch(`${apiOrigin}/api/runs/x`)).rejects.toThrow('fetch failed');
    } finally {
      server.close();
    }
  });
});
