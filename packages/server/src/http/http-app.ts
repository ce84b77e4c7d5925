import { ResumableError } from '@resumable/protocol';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { type Authorize, tokenOf } from '../auth.js';
import { addressKeys } from '../client-address.js';
import type { RunManager } from '../runs/run-manager.js';
import { RouteContext } from './context.js';
import { errorResponse } from './errors.js';
import { type FileLimits, fileRoutes } from './file-routes.js';
import { allowedMethod, errorFor, jsonBodiesOnly, methodNotAllowed, refuseHead } from './guards.js';
import { postRunsRoute } from './post-runs.js';
import { runRoutes } from './run-routes.js';
import { StreamQuota } from './stream-quota.js';
import { threadEditRoutes } from './thread-edit-routes.js';
import { threadEventsRoute } from './thread-events-route.js';
import { threadRoutes } from './thread-routes.js';

export interface HttpOptions {
  manager: RunManager;
  authorize: Authorize;
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins: readonly string[];
  maxBodyBytes: number;
  /** Open event streams per client address (unknown ones share one count); more answer `429`. */
  maxStreamsPerAddress: number;
  /** Uploaded files: where they are kept and their limits. */
  files: Omit<FileLimits, 'basePath'>;
  /** Mount point of every route, e.g. `/api`; `''` for the root. */
  basePath: string;
  /** Requests wait for it, so nobody reads a run that start-up is about to close. */
  ready?: Promise<void>;
  /**
   * The client's address, for the per-address limits (behind a proxy: from its header).
   * Requests without one share one count in each (`UNKNOWN_ADDRESS`), logged once.
   * @default the socket's remote address on Node (`@hono/node-server`), else none
   */
  clientAddress?: (request: Request, env: unknown) => string | null;
}

const RUN_HEADERS = ['Resumable-Run-Id', 'Resumable-Token', 'Location', 'Retry-After'];

/** The protocol.md endpoints as a Hono app (a Web `(Request) => Response` handler). */
export function createHttpApp(options: HttpOptions): Hono {
  // `strict: false`: `/threads/x/` is `/threads/x` (a 405 naming the very method used was
  // what a trailing slash got otherwise).
  const root = new Hono({ strict: false });
  const app = options.basePath && options.basePath !== '/' ? root.basePath(options.basePath) : root;

  root.onError(errorFor);
  root.use('*', refuseHead(options.basePath || '/'));
  const ready = options.ready;
  if (ready) {
    root.use('*', async (_c, next) => {
      await ready;
      await next();
    });
  }
  root.notFound((c) => {
    // A protocol path asked with another method is a 405 naming the one it serves.
    const allow = allowedMethod(options.basePath || '/', c.req.path);
    if (allow && c.req.method !== 'OPTIONS') {
      return errorResponse(methodNotAllowed(c.req.method, allow));
    }
    return errorResponse(new ResumableError('not_found', `no route ${c.req.method} ${c.req.path}`));
  });

  if (options.corsOrigins.length > 0) {
    const allowed = new Set(options.corsOrigins);
    app.use(
      '*',
      cors({
        origin: (origin) => (allowed.has(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Accept'],
        exposeHeaders: RUN_HEADERS,
        maxAge: 600,
      }),
    );
  }

  app.use('*', jsonBodiesOnly);
  const clientAddress = options.clientAddress ?? socketAddress;
  // Every per-address limit counts under this key: an unknown address under one shared key.
  const address = addressKeys((c: Context) => clientAddress(c.req.raw, c.env), options.manager.log);
  const ctx = new RouteContext(options.manager, options.authorize, {
    quota: new StreamQuota(options.maxStreamsPerAddress),
    address,
  });
  const basePath = options.basePath === '/' ? '' : options.basePath.replace(/\/$/, '');
  const { files } = options.files;
  app.route(
    '/',
    postRunsRoute(ctx, {
      maxBodyBytes: options.maxBodyBytes,
      files,
      basePath,
      clientAddress: address,
    }),
  );
  app.route('/', runRoutes(ctx));
  app.route('/', threadRoutes(ctx));
  app.route('/', threadEventsRoute(ctx));
  app.route('/', fileRoutes(ctx, { ...options.files, basePath, clientAddress: address }));
  app.route('/', threadEditRoutes(ctx, { files, clientAddress: address }));
  return root;
}

/** The remote address of the Node socket `@hono/node-server` passes as `env.incoming`. */
function socketAddress(_request: Request, env: unknown): string | null {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined)
    ?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : null;
}

export { errorResponse, tokenOf };
