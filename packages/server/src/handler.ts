import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createResumableApp, type ResumableApp, type ResumableServerOptions } from './app.js';

/** `createResumableHandler`'s options: the server's, mounted under `/api` unless told. */
export interface ResumableHandlerOptions extends ResumableServerOptions {
  /**
   * The path the handler is mounted under: the protocol's routes (`/runs`, `/threads/…`)
   * are answered below it, e.g. `/api/chat/runs/:id/events` for `'/api/chat'`.
   * @default '/api'
   */
  basePath?: string;
}

/**
 * A Web-standard handler serving the whole protocol, plus the server's parts
 * (`manager`, `store`, `ready`, `close`) for shutdown and tests.
 */
export type ResumableHandler = ((request: Request) => Promise<Response>) &
  Omit<ResumableApp, 'app'>;

/**
 * The protocol as one `(request: Request) => Promise<Response>`, to mount in any app that
 * speaks Web requests: a Next.js route handler, Hono, Bun, Deno — or Node's `http` and
 * Express through `toNodeListener`. Make it once per process (runs live in it).
 *
 * ```ts
 * const handler = createResumableHandler({ agent, store: 'sqlite:.data/runs.db' });
 * export { handler as GET, handler as POST }; // app/api/[...resumable]/route.ts
 * ```
 */
export function createResumableHandler(options: ResumableHandlerOptions = {}): ResumableHandler {
  const resumable = createResumableApp({ ...options, basePath: options.basePath ?? '/api' });
  const handler = async (request: Request): Promise<Response> => resumable.app.fetch(request);
  return Object.assign(handler, {
    manager: resumable.manager,
    store: resumable.store,
    ready: resumable.ready,
    close: () => resumable.close(),
  });
}

/**
 * A Web handler as a Node `(req, res)` listener, for `http.createServer` and Express
 * (`app.all('/api/*splat', toNodeListener(handler))`, before any body parser: the handler
 * reads the body itself). Streams are written with backpressure and a client that goes
 * away cancels its stream (never the run).
 */
export function toNodeListener(
  handler: (request: Request) => Response | Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  // Leave the host application's global Request/Response alone.
  return getRequestListener(handler, { overrideGlobalObjects: false });
}
