import { resumePointOf } from '@resumable/protocol';
import { Hono } from 'hono';
import { authorizeOrThrow } from '../auth.js';
import type { RouteContext } from './context.js';

/**
 * `GET /threads/:id/events`: the thread's event stream after a resume point (protocol.md,
 * "Thread event stream"), with the offset rules of a run's stream. It has no end: `200`
 * or an error, never `204`.
 */
export function threadEventsRoute(ctx: RouteContext): Hono {
  const routes = new Hono();
  routes.get('/threads/:threadId/events', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'read', threadId, thread });
    const after = resumePointOf(c.req.query('after'), c.req.header('last-event-id'));
    return ctx.streamResponse(c, () => ctx.manager.threads.streams.open(threadId, after));
  });
  return routes;
}
