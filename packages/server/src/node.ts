import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createResumableApp, type ResumableApp, type ResumableServerOptions } from './app.js';

export interface StartServerOptions extends ResumableServerOptions {
  /**
   * Port to listen on; `0` picks a free one.
   * @default 8787
   */
  port?: number;
  /** @default '127.0.0.1' */
  hostname?: string;
  /** @default '/api' */
  basePath?: string;
  /**
   * How long `close()` lets open responses finish before cutting their sockets.
   * @default 2000
   */
  closeGraceMs?: number;
  /**
   * A connection on which nothing moves this long (no byte read from the client, none
   * taken by it) is destroyed: a client that stops reading an event stream would
   * otherwise hold its socket and everything buffered for it for good. Live streams are
   * pinged every `heartbeatMs` at most, so it must be longer than that.
   * @default 60000
   */
  socketIdleMs?: number;
}

export interface RunningServer extends Omit<ResumableApp, 'ready'> {
  /** Base URL of the API, e.g. `http://127.0.0.1:8787/api`. */
  url: string;
  port: number;
}

/** Starts the server on Node with `@hono/node-server`; resolves once it listens. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const basePath = options.basePath ?? '/api';
  const hostname = options.hostname ?? '127.0.0.1';
  const socketIdleMs = options.socketIdleMs ?? 60_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  if (!(socketIdleMs > heartbeatMs)) {
    throw new RangeError(
      `socketIdleMs (${socketIdleMs}) must be longer than heartbeatMs (${heartbeatMs}): idle streams would be cut`,
    );
  }
  const resumable = createResumableApp({ ...options, basePath });
  await resumable.ready;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: resumable.app.fetch, port: options.port ?? 8787, hostname }, () =>
      resolve(s),
    );
    s.once('error', reject);
  });
  // Node's default is no timeout: a stuck reader's socket and buffers would stay forever.
  server.setTimeout(socketIdleMs);
  const port = (server.address() as AddressInfo).port;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}${basePath === '/' ? '' : basePath}`,
    port,
    app: resumable.app,
    manager: resumable.manager,
    store: resumable.store,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        // Streams end first (clients see a body without a terminal event and resume).
        await resumable.manager.close();
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        const grace = setTimeout(() => {
          if ('closeAllConnections' in server) server.closeAllConnections();
        }, options.closeGraceMs ?? 2000);
        await stopped;
        clearTimeout(grace);
        await resumable.close();
      })();
      return closing;
    },
  };
}
