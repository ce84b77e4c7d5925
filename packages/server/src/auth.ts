import { timingSafeEqual } from 'node:crypto';
import { ResumableError } from '@resumable/protocol';
import type { ThreadRecord } from './stores/types.js';

/** What a request wants to touch. */
export interface AuthorizeTarget {
  /**
   * `create`: start a run; `read`: events, status, history, files; `cancel`: cancel a run;
   * `update`: rename the thread; `delete`: delete it; `upload`: add a file to it.
   */
  action: 'create' | 'read' | 'cancel' | 'update' | 'delete' | 'upload';
  /** The thread the request is about (a new one's id too, when `create` makes it). */
  threadId: string;
  /** The run the request names (reading or cancelling one, a `create`'s `runId`), if any. */
  runId?: string;
  /** The thread as stored; null when `create` starts a new thread. */
  thread: ThreadRecord | null;
}

/**
 * Replaces the thread-token policy (cookies, sessions, API keys): return `true` to allow,
 * `false` for `403 forbidden`, or throw a `ResumableError` (e.g. `unauthorized`) for
 * another answer.
 */
export type Authorize = (request: Request, target: AuthorizeTarget) => boolean | Promise<boolean>;

/** The bearer token of a request: `Authorization: Bearer …`, else `?token=`. */
export function tokenOf(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match) return match[1]!.trim();
  }
  return new URL(request.url).searchParams.get('token');
}

/**
 * The default policy (protocol.md, "Access"): a new thread needs nothing; everything on
 * an existing thread needs its token. Missing → 401, wrong → 403.
 */
export const tokenPolicy: Authorize = (request, target) => {
  if (target.thread === null) return true;
  const token = tokenOf(request);
  if (token === null || token === '') {
    throw new ResumableError(
      'unauthorized',
      'this thread needs its token: Authorization: Bearer <token> (or ?token=)',
    );
  }
  const a = Buffer.from(token);
  const b = Buffer.from(target.thread.token);
  return a.length === b.length && timingSafeEqual(a, b);
};

export async function authorizeOrThrow(
  authorize: Authorize,
  request: Request,
  target: AuthorizeTarget,
): Promise<void> {
  if (!(await authorize(request, target))) {
    throw new ResumableError('forbidden', 'this token does not grant access to this thread');
  }
}

export function newToken(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
