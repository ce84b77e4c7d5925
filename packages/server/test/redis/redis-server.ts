import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * A real `redis-server` for the tests: on 127.0.0.1, on a free port, in a temp dir,
 * without persistence unless asked. The Redis tests never skip: with no redis-server
 * installed they fail and say how to install it.
 */
export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** Stops the process (SIGTERM, then SIGKILL after 3 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port and dir (after `stop`). */
  restart(): Promise<void>;
  /** Sends one command on a connection of its own (`INFO`, …). */
  command(...args: string[]): Promise<unknown>;
  /** SIGSTOP: the process and its sockets stay, nothing is answered (a hung host). */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  /** Stops it and removes its dir. */
  dispose(): Promise<void>;
}

export interface RedisServerOptions {
  /**
   * Keep data across `restart` (append-only file, fsync always).
   * @default false (`--save '' --appendonly no`)
   */
  persistent?: boolean;
}

const INSTALL_HINT =
  'redis-server is not installed. The Redis store tests need a real Redis and do not skip: ' +
  'apt-get install -y redis-server (on Debian; .ci/run installs it).';

export function assertRedisInstalled(): void {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  assertRedisInstalled();
  const dir = mkdtempSync(join(tmpdir(), 'resumable-redis-'));
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--daemonize',
    'no',
    '--logfile',
    '',
    ...(options.persistent
      ? ['--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no']),
  ];
  let child: ChildProcess | null = null;
  const start = async () => {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      if (output.length < 20_000) output += chunk.toString();
    });
    await waitForPort(port, proc, () => output);
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGCONT'); // a paused process would never act on SIGTERM
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    restart: start,
    async command(...args: string[]) {
      const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
      try {
        return await client.call(args[0]!, ...args.slice(1));
      } finally {
        client.disconnect();
      }
    },
    pause: () => (child as ChildProcess | null)?.kill('SIGSTOP'),
    resume: () => (child as ChildProcess | null)?.kill('SIGCONT'),
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port free on 127.0.0.1 now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the port accepts connections; bounded to 10 s. */
export async function waitForPort(port: number, proc: ChildProcess, output: () => string) {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    if (proc.exitCode !== null) {
      throw new Error(`redis-server exited with ${proc.exitCode}:\n${output()}`);
    }
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  proc.kill('SIGKILL');
  throw new Error(`redis-server did not listen on ${port} within 10 s:\n${output()}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}
