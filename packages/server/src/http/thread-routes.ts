import { ResumableError } from '@resumable/protocol';
import { Hono } from 'hono';
import { authorizeOrThrow } from '../auth.js';
import { pageBranch } from '../branches/history.js';
import { isValidId } from '../input.js';
import { pageLimit, type RouteContext } from './context.js';
import { threadBody } from './thread-body.js';

/** `GET /threads/:id` (its runs) and `GET /threads/:id/messages` (history pages). */
export function threadRoutes(ctx: RouteContext): Hono {
  const routes = new Hono();

  routes.get('/threads/:threadId', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'read', threadId, thread });
    return c.json(await threadBody(ctx, thread, pageLimit(c.req.query('limit'), 20)));
  });

  routes.get('/threads/:threadId/messages', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'read', threadId, thread });
    const limit = pageLimit(c.req.query('limit'), 50);
    const beforeText = c.req.query('before');
    let before: number | null = null;
    if (beforeText !== undefined && beforeText !== '') {
      if (!/^[1-9][0-9]{0,15}$/.test(beforeText)) {
        throw new ResumableError(
          'bad_request',
          `before must be a cursor from nextBefore, got "${beforeText}"`,
        );
      }
      before = Number(beforeText);
    }
    const through = c.req.query('through') ?? '';
    if (through !== '' && !isValidId(through)) {
      throw new ResumableError('bad_request', 'through must be a message id');
    }
    return c.json(
      await pageBranch(ctx.store, threadId, {
        before,
        limit,
        through: through === '' ? null : through,
      }),
    );
  });

  return routes;
}
