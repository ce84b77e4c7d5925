import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('./instance.ts', import.meta.url));

export interface Instance {
  name: string;
  proc: ChildProcess;
  url: string;
  /** Run ids whose agent saw its abort signal in this process. */
  aborted: string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a server instance as a child process on the given Redis keys. */
export async function startInstance(
  name: string,
  redisUrl: string,
  prefix: string,
  leaseMs: number,
): Promise<Instance> {
  const proc = fork(entry, [], {
    execArgv: ['--conditions=@resumable/source', '--import', 'tsx'],
    env: {
      ...process.env,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      LEASE_MS: String(leaseMs),
      INSTANCE_ID: name,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const aborted: string[] = [];
  const ready = new Promise<string>((resolve, reject) => {
    proc.on('message', (message: { type: string; url?: string; runId?: string }) => {
      if (message.type === 'ready') resolve(message.url!);
      if (message.type === 'aborted') aborted.push(message.runId!);
    });
    proc.once('exit', (code) => reject(new Error(`instance ${name} exited (${code}) at start-up`)));
  });
  const url = await ready;
  return {
    name,
    proc,
    url,
    aborted,
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = once(proc, 'exit');
      proc.kill(signal);
      await exited;
    },
  };
}
