import { createServer } from 'node:net';

/**
 * A port already taken, said so a newcomer can act on it: which port, whose (the API
 * server's or the web server's), how to find what holds it, and the variable that moves it.
 * `pnpm dev` and `pnpm preview` print this instead of Node's and Vite's stack traces.
 */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    /** The environment variable that picks this port. */
    readonly variable: 'PORT' | 'WEB_PORT',
  ) {
    super(portInUseMessage(port, variable));
    this.name = 'PortInUseError';
  }
}

export function portInUseMessage(port: number, variable: 'PORT' | 'WEB_PORT'): string {
  const whose = variable === 'PORT' ? 'the API server' : 'the web app';
  const other = port === 65535 ? port - 1 : port + 1;
  // `pnpm dev` or `pnpm preview`: the script that was run, when pnpm says which.
  const command = `pnpm ${process.env.npm_lifecycle_event ?? 'dev'}`;
  return [
    `Port ${port} (${whose}) is already in use — another \`pnpm dev\` or \`pnpm preview\` still running?`,
    `  Free it: stop that process (\`lsof -i :${port}\` or \`ss -ltnp 'sport = :${port}'\` shows which one).`,
    `  Or use another port: ${variable}=${other} ${command}`,
  ].join('\n');
}

/** Vite's strict-port failure (`Port 5173 is already in use`) or Node's `EADDRINUSE`. */
export function isPortInUse(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ||
    /^Port \d+ is already in use$/.test(error.message)
  );
}

/**
 * Fails with Node's `EADDRINUSE` when `port` is taken on `host` (Vite's default, so the
 * same address Vite would bind). Vite starts its dependency scan before it binds: told
 * by Vite's own failure, closing it mid-scan printed "Failed to run dependency scan" with
 * a stack trace above the words. Asked first, nothing of Vite has started. (Another
 * process can still take the port in between; Vite's failure is then said the same way.)
 */
export async function ensurePortFree(port: number, host = 'localhost'): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, resolve);
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
