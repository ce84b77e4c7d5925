import { ResumableError, THREAD_EVENTS } from '@resumable/protocol';
import { type Context, Hono } from 'hono';
import { authorizeOrThrow, newToken } from '../auth.js';
import { MAX_EDIT_BODY, MAX_TITLE_LENGTH } from '../defaults.js';
import { deleteThread } from '../runs/thread-deletion.js';
import type { FileStore, ThreadRecord } from '../stores/types.js';
import type { RouteContext } from './context.js';
import { bodyText } from './request-body.js';
import { threadBody } from './thread-body.js';

export interface ThreadEditOptions {
  files: FileStore;
  clientAddress: (c: Context) => string;
}

/** `POST /threads` (an empty thread), `PATCH /threads/:id` (rename), `DELETE /threads/:id`. */
export function threadEditRoutes(ctx: RouteContext, options: ThreadEditOptions): Hono {
  const routes = new Hono();
  routes.post('/threads', async (c) => {
    // Counted like a run start against this client's per-minute rate, before the body is
    // read (a refused one costs nothing more; an invalid one counts too).
    await ctx.manager.admitThread(options.clientAddress(c));
    const body = await jsonBody(c);
    const title = body.title === undefined || body.title === null ? null : titleOf(body.title);
    const threadId = crypto.randomUUID();
    const now = Date.now();
    const thread: ThreadRecord = {
      threadId,
      token: newToken(),
      createdAt: now,
      ...(title === null ? {} : { title, updatedAt: now }),
    };
    await ctx.store.createThread(thread);
    if (title !== null) await ctx.store.threadEdits.rename(threadId, title, now);
    return c.json({ ...(await threadBody(ctx, thread, 20)), token: thread.token }, 201);
  });

  routes.patch('/threads/:threadId', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'update', threadId, thread });
    const body = await jsonBody(c);
    const title = titleOf(body.title);
    if (!(await ctx.store.threadEdits.rename(threadId, title, Date.now()))) {
      throw new ResumableError('thread_not_found', `no thread ${threadId}`);
    }
    // Awaited (it never throws for the store): the answer's lastOffset then includes it.
    await ctx.manager.announce(threadId, THREAD_EVENTS.historyChanged, {
      reason: 'renamed',
      title,
    });
    return c.json(await threadBody(ctx, await ctx.loadThread(threadId), 20));
  });

  routes.delete('/threads/:threadId', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'delete', threadId, thread });
    await deleteThread(ctx.manager, options.files, threadId);
    return c.body(null, 204);
  });

  return routes;
}

const tooLarge = () =>
  new ResumableError(
    'payload_too_large',
    `the request body is over the limit of ${MAX_EDIT_BODY} bytes`,
  );

/** The body as a JSON object, read once the request may be answered otherwise. */
async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await bodyText(c, MAX_EDIT_BODY, tooLarge);
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ResumableError('bad_request', 'the body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ResumableError('bad_request', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A title: a string of 1 to 200 characters once trimmed, without control characters. */
function titleOf(value: unknown): string {
  const title = typeof value === 'string' ? value.trim() : '';
  // Control characters as Unicode has them (`Cc`): C0, DEL and C1 (U+0080-U+009F).
  const control = /\p{Cc}/u;
  if (title === '' || [...title].length > MAX_TITLE_LENGTH || control.test(title)) {
    throw new ResumableError(
      'bad_request',
      `title must be a string of 1 to ${MAX_TITLE_LENGTH} characters, without control characters`,
    );
  }
  return title;
}
