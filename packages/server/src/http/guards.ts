import { ResumableError } from '@resumable/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { MAX_DRAINED_BYTES } from '../defaults.js';
import { errorResponse } from './errors.js';
import { BODY_READ, declaredLength, hasBody } from './request-body.js';

/** The method each protocol.md route serves, by the shape of its path under the base. */
const ROUTES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/runs\/?$/, 'POST'],
  [/^\/runs\/[^/]+\/?$/, 'GET'],
  [/^\/runs\/[^/]+\/events\/?$/, 'GET'],
  [/^\/runs\/[^/]+\/cancel\/?$/, 'POST'],
  [/^\/threads\/?$/, 'POST'],
  [/^\/threads\/[^/]+\/?$/, 'GET, PATCH, DELETE'],
  [/^\/threads\/[^/]+\/messages\/?$/, 'GET'],
  [/^\/threads\/[^/]+\/events\/?$/, 'GET'],
  [/^\/threads\/[^/]+\/files\/?$/, 'POST'],
  [/^\/threads\/[^/]+\/files\/[^/]+\/?$/, 'GET'],
];

/** `POST /threads/:id/files` takes the file's raw bytes, not JSON. */
const UPLOAD = /\/threads\/[^/]+\/files\/?$/;

/** The methods `path` (under `basePath`) is served with, or null for no such route. */
export function allowedMethod(basePath: string, path: string): string | null {
  const base = basePath === '/' ? '' : basePath.replace(/\/$/, '');
  if (!path.startsWith(base)) return null;
  const rest = path.slice(base.length);
  return ROUTES.find(([shape]) => shape.test(rest))?.[1] ?? null;
}

/** `405 method_not_allowed` naming the method the route serves (its `Allow` header). */
export function methodNotAllowed(method: string, allow: string): ResumableError {
  const error = new ResumableError(
    'method_not_allowed',
    `${method} is not served here: use ${allow}`,
  );
  return Object.assign(error, { allow });
}

/**
 * `HEAD` is answered `405` on every route: Hono would run the `GET` handler for it and
 * drop the body unread, leaving an event stream (and its subscriber slot) open for good.
 */
export function refuseHead(basePath: string): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'HEAD') {
      throw methodNotAllowed('HEAD', allowedMethod(basePath, c.req.path) ?? 'GET');
    }
    await next();
  };
}

/**
 * A `POST` or `PATCH` body must be `application/json`: a form or `text/plain` POST is what
 * any web page can send from a visitor's browser without a CORS preflight. A `POST`
 * without a body (cancel) needs no type; an upload is checked by its own route (it needs
 * the thread's token, which a cross-site form does not have).
 */
export const jsonBodiesOnly: MiddlewareHandler = async (c, next) => {
  if ((c.req.method === 'POST' && !UPLOAD.test(c.req.path)) || c.req.method === 'PATCH') {
    const type = c.req.header('content-type');
    const mediaType = type?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json' && (type !== undefined || hasBody(c.req.raw))) {
      throw new ResumableError(
        'unsupported_media_type',
        `the body must be application/json, got ${type === undefined ? 'no Content-Type' : JSON.stringify(type)}`,
      );
    }
  }
  await next();
};

/**
 * Refusals of the body itself: the client sent what this route does not take, and is
 * likely a real one (a file too large, a type not accepted). The rest of its body is read
 * and dropped after the answer, so it can finish sending and read it.
 */
const BODY_REFUSALS = new Set(['payload_too_large', 'unsupported_media_type', 'bad_request']);

/**
 * The error response for `c`. An answer sent before the request's body was read keeps
 * the connection when it refuses the body itself (`BODY_REFUSALS`): the server reads and
 * drops the rest after answering (`startServer`), at most `MAX_DRAINED_BYTES`, and the
 * next request on the connection is served. Any other (401, 403, 404, 429…) says
 * `Connection: close`: the body of a request refused for who sent it is never read, and
 * the connection closes after the answer — as does one declaring more than the server
 * drains.
 */
export function errorFor(error: unknown, c: Context): Response {
  const unread = hasBody(c.req.raw) && c.get(BODY_READ as never) !== true;
  // A client that went away mid-body is no server fault: not logged as an internal error
  // (a hostile client would fill the log with stack traces); nobody reads this answer. A
  // request without a body has no body to cut: its failure is the server's, and logged.
  const gone = unread && !(error instanceof ResumableError) && c.req.raw.signal.aborted;
  const answer = gone
    ? new ResumableError('bad_request', 'the client went away before its body was read')
    : error;
  const response = errorResponse(answer);
  const drained =
    answer instanceof ResumableError &&
    BODY_REFUSALS.has(answer.code) &&
    (declaredLength(c.req.raw) ?? 0) <= MAX_DRAINED_BYTES;
  if (unread && !drained) response.headers.set('Connection', 'close');
  return response;
}
