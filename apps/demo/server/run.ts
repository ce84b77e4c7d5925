import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isPortInUse, PortInUseError } from './port-in-use.js';
import { type Supervisor, superviseServer } from './supervisor.js';

/** Shared by `pnpm dev` and `pnpm preview`: start the API server, then the web server. */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface WebServer {
  close(): Promise<void>;
}

/** How the web server starts: on `port`, proxying `/api` to the API server. */
export interface Web {
  /** `WEB_PORT`, else 5173 (`pnpm dev`) or 4173 (`pnpm preview`). */
  port: number;
  start(api: Supervisor): Promise<WebServer>;
}

/** `WEB_PORT` when set, else `fallback`. */
export function webPort(fallback: number): number {
  return Number(process.env.WEB_PORT ?? fallback);
}

/**
 * Starts the supervised API server with the demo's defaults (SQLite under the repo's
 * `.data/`, answers long enough to break on purpose), points the Vite proxy at it, runs
 * `startWeb`, and stops both on Ctrl-C. A port already taken is said in words (which port,
 * how to free or change it) and ends the process, with no stack trace.
 */
export async function runWithApi(web: Web) {
  try {
    await start(web);
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    console.error(`\n${error.message}\n`);
    process.exit(1);
  }
}

async function start(webStart: Web) {
  mkdirSync(`${repoRoot}.data`, { recursive: true });
  const api = await superviseServer({
    port: Number(process.env.PORT ?? 8787),
    env: {
      RESUMABLE_STORE: process.env.RESUMABLE_STORE ?? `sqlite:${repoRoot}.data/resumable.db`,
      // The showcase reply in about 11 s (a 600-token filler reply in 20 s): time to reload,
      // pull the network or restart the server.
      SCRIPTED_TOKENS: process.env.SCRIPTED_TOKENS ?? '600',
      SCRIPTED_TPS: process.env.SCRIPTED_TPS ?? '30',
      // The showcase reply (reasoning, a tool call, rich Markdown); `filler` for plain text.
      SCRIPTED_REPLY: process.env.SCRIPTED_REPLY ?? 'demo',
    },
    log: (line) => console.log(`[api] ${line}`),
  });
  process.env.RESUMABLE_API_URL = api.origin;
  let web: WebServer;
  try {
    web = await webStart.start(api);
  } catch (error) {
    await api.close();
    if (isPortInUse(error)) throw new PortInUseError(webStart.port, 'WEB_PORT');
    throw error;
  }

  let stopping = false;
  const stop = async () => {
    // A terminal's Ctrl-C reaches pnpm and this process both: the second signal is ignored.
    if (stopping) return;
    stopping = true;
    console.log('\nStopping the demo…');
    await Promise.allSettled([web.close(), api.close()]);
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/** The one line to open, printed after everything else has started. */
export function printReady(appUrl: string, api: Supervisor): void {
  const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[22m` : s);
  console.log(
    `\n  Resumable demo ready\n\n  ➜  Open ${bold(appUrl)}\n     (API on ${api.origin}/api, proxied under /api; Ctrl-C stops both)\n`,
  );
}
