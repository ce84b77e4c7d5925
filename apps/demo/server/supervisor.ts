import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { PortInUseError } from './port-in-use.js';

/**
 * Runs the demo's API server (`server/main.ts`) as a child process and starts it again when
 * it exits. A real process boundary is what makes "restart the server" honest: the child
 * dies with its in-memory state and open sockets, and only what SQLite kept survives — the
 * same thing that happens when a production server is redeployed or crashes.
 */

/** Exit code the server uses to ask for a restart (the chaos panel's "Restart server"). */
export const RESTART_EXIT_CODE = 75;

export interface SupervisorOptions {
  /**
   * Port for the first start; 0 picks a free one. Restarts reuse the port the first start
   * got, so proxies and open pages keep pointing at the same address.
   * @default 8787
   */
  port?: number;
  /** @default '127.0.0.1' */
  hostname?: string;
  /** Extra environment for the child (RESUMABLE_STORE, SCRIPTED_TOKENS, OPENAI_*...). */
  env?: Record<string, string | undefined>;
  /**
   * Where the child's own output goes. `inherit` for `pnpm dev`; `ignore` keeps test logs
   * quiet.
   * @default 'inherit'
   */
  stdio?: 'inherit' | 'ignore';
  /**
   * How long a start may take before it counts as failed.
   * @default 30000
   */
  startTimeoutMs?: number;
  /** Called with one line per lifecycle fact (started, exited, restarting). */
  log?: (line: string) => void;
}

export interface Supervisor {
  /** `http://host:port` of the API server (the API itself is under `/api`). */
  readonly origin: string;
  readonly port: number;
  /** How many times the child was started again. */
  readonly restarts: number;
  /** The current child's pid (changes on each restart). */
  readonly pid: number | undefined;
  /**
   * Stops the child and starts it again; resolves when the new one listens.
   * `SIGKILL` is a crash (runs in flight end `agent_lost`); `SIGTERM` a clean shutdown.
   * @default 'SIGKILL'
   */
  restart(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when the next start has finished (after a restart the child asked for). */
  nextReady(): Promise<void>;
  /** Stops the child for good. */
  close(): Promise<void>;
}

/** What the child tells its supervisor: it listens, or its port is taken. */
interface ChildMessage {
  type: 'ready' | 'port-in-use';
  port: number;
}

const entry = fileURLToPath(new URL('./main.ts', import.meta.url));
const demoDir = fileURLToPath(new URL('..', import.meta.url));

/** Starts `server/main.ts` under supervision; resolves once it listens. */
export async function superviseServer(options: SupervisorOptions = {}): Promise<Supervisor> {
  const hostname = options.hostname ?? '127.0.0.1';
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const log = options.log ?? (() => {});
  let port = options.port ?? 8787;
  let child: ChildProcess | undefined;
  let closing = false;
  let restarts = 0;
  let crashTimes: number[] = [];
  // Only a child that once listened is restarted; one that fails to start is an error.
  const listened = new WeakSet<ChildProcess>();
  let waiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  const settleWaiters = (error?: Error) => {
    const current = waiters;
    waiters = [];
    for (const waiter of current) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  };

  const start = async (): Promise<void> => {
    const proc = fork(entry, [], {
      cwd: demoDir,
      // tsx runs the TypeScript entry; `source` resolves workspace packages to their src.
      execArgv: ['--conditions=@resumable/source', '--import', 'tsx'],
      env: { ...process.env, ...options.env, PORT: String(port), HOST: hostname },
      stdio: ['ignore', options.stdio ?? 'inherit', options.stdio ?? 'inherit', 'ipc'],
      // Its own process group: a terminal's Ctrl-C reaches only the supervisor, which then
      // stops the child itself (otherwise the child would die first and be restarted).
      detached: true,
    });
    child = proc;
    proc.on('exit', (code, signal) => onExit(proc, code, signal));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`API server did not start within ${startTimeoutMs} ms`));
        proc.kill('SIGKILL');
      }, startTimeoutMs);
      proc.on('message', (message: ChildMessage) => {
        if (message?.type === 'port-in-use') {
          clearTimeout(timer);
          reject(new PortInUseError(port, 'PORT'));
          return;
        }
        if (message?.type !== 'ready') return;
        clearTimeout(timer);
        port = message.port;
        listened.add(proc);
        resolve();
      });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`API server exited during start-up (code ${code}, signal ${signal})`));
      });
    });
    await ready;
    log(`API server listening on http://${hostname}:${port}/api (pid ${proc.pid})`);
    settleWaiters();
  };

  const onExit = (proc: ChildProcess, code: number | null, signal: NodeJS.Signals | null) => {
    if (proc !== child || closing || !listened.has(proc)) return;
    child = undefined;
    const asked = code === RESTART_EXIT_CODE;
    log(asked ? 'API server restarting…' : `API server exited (code ${code}, signal ${signal})`);
    if (!asked) {
      // A server that keeps crashing right after start would otherwise loop forever.
      const now = Date.now();
      crashTimes = [...crashTimes.filter((t) => now - t < 30_000), now];
      if (crashTimes.length > 5) {
        log('API server crashed 5 times in 30 s: giving up');
        settleWaiters(new Error('API server keeps crashing'));
        return;
      }
    }
    restarts += 1;
    start().catch((error: Error) => {
      log(error.message);
      settleWaiters(error);
    });
  };

  const stopChild = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    child = undefined;
    const exited = once(proc, 'exit');
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  await start();

  return {
    get origin() {
      return `http://${hostname}:${port}`;
    },
    get port() {
      return port;
    },
    get restarts() {
      return restarts;
    },
    get pid() {
      return child?.pid;
    },
    async restart(signal: NodeJS.Signals = 'SIGKILL') {
      await stopChild(signal);
      restarts += 1;
      await start();
    },
    nextReady() {
      return new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
    },
    async close() {
      closing = true;
      await stopChild('SIGTERM');
      settleWaiters(new Error('supervisor closed'));
    },
  };
}
