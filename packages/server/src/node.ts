import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { createResumableApp, type ResumableApp, type ResumableServerOptions } from './app.js';
import { CLOSE_LINGER_MS, DEFAULTS, MAX_DRAINED_BYTES } from './defaults.js';

/**
 * `startServer`'s options: the server's (`ResumableServerOptions`) and the Node HTTP
 * server's own: where it listens and how long it waits for slow or idle clients.
 */
export interface StartServerOptions extends ResumableServerOptions {
  /**
   * Port to listen on; `0` picks a free one.
   * @default 8787
   */
  port?: number;
  /**
   * Interface to listen on: the default takes only local connections; `'0.0.0.0'` (or
   * `'::'`) takes them from anywhere.
   * @default '127.0.0.1'
   */
  hostname?: string;
  /**
   * Path every route is mounted under (`url` ends with it); `'/'` for the root.
   * @default '/api'
   */
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
  /**
   * A request whose headers have not all arrived this long after its first byte is
   * answered `408` (no body) and its connection closed: a client sending headers a byte at
   * a time holds a socket for no longer. At most `requestTimeoutMs`.
   * @default 30000
   */
  headersTimeoutMs?: number;
  /**
   * A request whose headers and body have not all arrived this long after its first byte
   * is answered `408` (no body), or, when it was already answered, has its connection
   * closed: bounds a slow upload, and the reading of a refused body's rest.
   * @default 120000 (a 10 MiB upload at 1 Mbit/s takes 84 s)
   */
  requestTimeoutMs?: number;
}

/**
 * A server `startServer` started, listening: its address, and the parts of `ResumableApp`
 * (`close()` stops listening, ends streams and runs, then closes the store).
 */
export interface RunningServer extends Omit<ResumableApp, 'ready'> {
  /** Base URL of the API, e.g. `http://127.0.0.1:8787/api`. */
  url: string;
  /** The port it listens on: the one asked for, or the one picked for `port: 0`. */
  port: number;
}

/**
 * After an answer sent before its request's body was all read that keeps the connection
 * (a refusal of the body itself, guards.ts), the rest of the body is read and dropped — at
 * most `MAX_DRAINED_BYTES`, within the request timeout — so the client's writes never meet
 * a reset and it reads the answer; the connection then serves its next request. Node
 * itself drops only a body no route began to read, and a socket closed on unread bytes is
 * reset.
 */
function dropUnreadBody(incoming: IncomingMessage, outgoing: ServerResponse): void {
  if (incoming.method === 'GET' || incoming.method === 'HEAD') return;
  outgoing.once('finish', () => {
    const socket = incoming.socket;
    if (incoming.complete || socket.destroyed) return;
    // Whatever the route read the body with is done with it: flowing with no listener,
    // each chunk is dropped as it comes.
    incoming.removeAllListeners('data');
    incoming.resume();
    const start = socket.bytesRead;
    const watch = setInterval(() => {
      if (incoming.complete || socket.destroyed) clearInterval(watch);
      else if (socket.bytesRead - start > MAX_DRAINED_BYTES) {
        clearInterval(watch);
        socket.destroy();
      }
    }, 100);
    watch.unref();
  });
}

/** The request each connection is answering now (`lingerOnClose` reads it). */
const answering = new WeakMap<Socket, IncomingMessage>();

/** What `startServer` does for every request, beside answering it. */
function onRequest(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const socket = incoming.socket;
  if (!answering.has(socket)) lingerOnClose(socket);
  answering.set(socket, incoming);
  dropUnreadBody(incoming, outgoing);
}

/**
 * Node closes a connection whose answer says `Connection: close` as soon as the answer is
 * written (`destroySoon`). With the request's body still coming — a refusal of who sent
 * it, whose body is never read — that close is a reset, and an answer the client's side
 * has not acknowledged yet is lost with it: under load, some of 20 clients never read
 * their 401. Instead the answer and a FIN are sent, nothing more is read, and the socket
 * closes `CLOSE_LINGER_MS` later, by when the client has the answer.
 */
function lingerOnClose(socket: Socket): void {
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    const incoming = answering.get(socket);
    if (!incoming || incoming.complete) {
      destroySoon();
      return;
    }
    socket.pause();
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
  };
}

/**
 * Starts the server on Node with `@hono/node-server`; resolves once start-up work is done
 * (`ready`) and it listens. Throws a `RangeError` when `socketIdleMs` is not longer than
 * `heartbeatMs` or `headersTimeoutMs` exceeds `requestTimeoutMs` (and whatever
 * `createResumableApp` throws); rejects with the listen error (`EADDRINUSE`…).
 */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const node = DEFAULTS.startServer;
  const basePath = options.basePath ?? node.basePath;
  const hostname = options.hostname ?? node.hostname;
  const socketIdleMs = options.socketIdleMs ?? node.socketIdleMs;
  const heartbeatMs = options.heartbeatMs ?? DEFAULTS.heartbeatMs;
  if (!(socketIdleMs > heartbeatMs)) {
    throw new RangeError(
      `socketIdleMs (${socketIdleMs}) must be longer than heartbeatMs (${heartbeatMs}): idle streams would be cut`,
    );
  }
  const headersTimeout = options.headersTimeoutMs ?? node.headersTimeoutMs;
  const requestTimeout = options.requestTimeoutMs ?? node.requestTimeoutMs;
  if (headersTimeout > requestTimeout) {
    throw new RangeError(
      `headersTimeoutMs (${headersTimeout}) must not exceed requestTimeoutMs (${requestTimeout})`,
    );
  }
  const resumable = createResumableApp({ ...options, basePath });
  await resumable.ready;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: resumable.app.fetch,
        port: options.port ?? node.port,
        hostname,
        // The rest of a refused body is read and dropped here (`dropUnreadBody`), longer
        // and further than @hono/node-server's own clean-up would (500 ms).
        autoCleanupIncoming: false,
        serverOptions: {
          headersTimeout,
          requestTimeout,
          // Node looks for late requests this often (its default, 30 s, would let them
          // run up to 30 s over their timeout).
          connectionsCheckingInterval: Math.max(50, Math.min(30_000, headersTimeout / 10)),
        },
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  server.on('request', onRequest);
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
        }, options.closeGraceMs ?? node.closeGraceMs);
        await stopped;
        clearTimeout(grace);
        await resumable.close();
      })();
      return closing;
    },
  };
}
