import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppUnderTest } from '../e2e/demo-page.js';
import { EXAMPLE_DIR } from '../shared-builds.js';

/**
 * The Next.js example (`examples/nextjs`) as a user runs it in production: `next start` on
 * the run's one `next build`, on an ephemeral 127.0.0.1 port, with SQLite in a temp dir and
 * the scripted agent at the pace a test sets. The browser reaches it through a TCP proxy
 * of the test's own, so a test can drop every open connection at once (`cut`): what a
 * dropped network does to an open event stream, and Chromium's offline mode does not.
 */

export interface NextApp extends AppUnderTest {
  /** Closes every connection the browser has open to the app; returns how many. */
  cut(): number;
  close(): Promise<void>;
}

/** The scripted agent's answer length and pace (`scriptedAgent` reads them from the env). */
export interface Script {
  tokens: number;
  tokensPerSecond: number;
}

const NEXT_BIN = join(EXAMPLE_DIR, 'node_modules', 'next', 'dist', 'bin', 'next');
const START_TIMEOUT_MS = 30_000;
const OUTPUT_LIMIT = 20_000;

/**
 * @param options.script the scripted agent's answers
 * @param options.env more of the app's environment: a `RESUMABLE_STORE`, a model's key…
 */
export async function startNextApp(options: {
  script: Script;
  env?: Record<string, string>;
}): Promise<NextApp> {
  const tmp = mkdtempSync(join(tmpdir(), 'resumable-nextjs-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing from the developer's shell picks the answers: a key there would pick a model.
  for (const name of Object.keys(env)) {
    if (/^(OPENAI|ANTHROPIC|SCRIPTED|RESUMABLE)_/.test(name) || name === 'PORT') delete env[name];
  }
  Object.assign(env, {
    NEXT_TELEMETRY_DISABLED: '1',
    RESUMABLE_STORE: `sqlite:${join(tmp, 'resumable.db')}`,
    SCRIPTED_TOKENS: String(options.script.tokens),
    SCRIPTED_TPS: String(options.script.tokensPerSecond),
    // The plain filler reply: the tests compare its text with the page's.
    SCRIPTED_REPLY: 'filler',
    ...options.env,
  });
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-H', '127.0.0.1', '-p', '0'], {
    cwd: EXAMPLE_DIR,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (process.env.E2E_VERBOSE) process.stderr.write(chunk);
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  try {
    const port = await listening(child, () => output);
    const origin = `http://127.0.0.1:${port}`;
    const proxy = await startCutProxy(port);
    return {
      appUrl: `http://127.0.0.1:${proxy.port}`,
      api: { origin },
      cut: () => proxy.cut(),
      async close() {
        await proxy.close();
        await stopChild(child);
        rmSync(tmp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopChild(child);
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}

/** The port `next start -p 0` got, once it says it is ready (it prints both). */
function listening(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(`not ready within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const check = () => {
      const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
      if (port && /Ready in/.test(output())) {
        clearTimeout(timer);
        resolve(Number(port));
      }
    };
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`next start ${why}:\n${output()}`));
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => fail(`exited with ${code}`));
    child.once('error', (error) => fail(`failed: ${error.message}`));
  });
}

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killed);
}

interface CutProxy {
  port: number;
  cut(): number;
  close(): Promise<void>;
}

/** A TCP proxy on an ephemeral 127.0.0.1 port to `target`, whose connections can be cut. */
async function startCutProxy(target: number): Promise<CutProxy> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const pair = [client, upstream];
    open.add(client);
    client.on('close', () => open.delete(client));
    for (const socket of pair) {
      // Either side failing or closing ends the pair: the other side sees a dropped network.
      socket.on('error', () => {
        for (const other of pair) other.destroy();
      });
      socket.on('close', () => {
        for (const other of pair) other.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  const cut = () => {
    const count = open.size;
    for (const client of open) client.destroy();
    return count;
  };
  return {
    port: address.port,
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
