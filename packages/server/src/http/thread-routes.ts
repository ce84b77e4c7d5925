import { ResumableError } from '@resumable/protocol';
import { Hono } from 'hono';
import { authorizeOrThrow } from '../auth.js';
import { pageBranch } from '../branches/history.js';
import { isValidId } from '../input.js';
import { interruptViews } from '../runs/interrupts.js';
import type { RunRecord, ThreadRecord } from '../stores/types.js';
import { pageLimit, type RouteContext } from './context.js';

/** `GET /threads/:id` (its runs) and `GET /threads/:id/messages` (history pages). */
export function threadRoutes(ctx: RouteContext): Hono {
  const routes = new Hono();

  routes.get('/threads/:threadId', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await ctx.loadThread(threadId);
    await authorizeOrThrow(ctx.authorize, c.req.raw, { action: 'read', threadId, thread });
    const limit = pageLimit(c.req.query('limit'), 20);
    // Read before the runs: what is announced after it is then never missed (it may repeat).
    const { last: lastOffset } = await ctx.manager.threads.head(threadId);
    const runs = await ctx.store.listRuns(threadId, limit);
    // The newest run's interrupts, or those of the run before it (which the newest one
    // answered): open or answered, the card survives a reload. Only two snapshots are read.
    const interrupted = runs.slice(0, 2).find((run) => run.snapshot?.outcome?.type === 'interrupt');
    const interrupts = interrupted?.snapshot
      ? await interruptViews(ctx.store, interrupted.snapshot)
      : [];
    return c.json({
      ...threadJson(thread, runs),
      lastOffset,
      waiting: interrupts.some((i) => i.status === 'open'),
      interrupts,
    });
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

/**
 * The `GET /threads/:id` body. `updatedAt` is the thread's last activity: its newest run's
 * start or end, or its last rename, whichever is later.
 */
export function threadJson(thread: ThreadRecord, runs: readonly RunRecord[]) {
  const newest = runs[0];
  const activity = newest ? (newest.endedAt ?? newest.createdAt) : 0;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    threadId: thread.threadId,
    title: thread.title ?? null,
    createdAt: iso(thread.createdAt),
    updatedAt: iso(Math.max(thread.updatedAt ?? thread.createdAt, activity)),
    runs: runs.map((run) => ({
      runId: run.runId,
      status: run.status,
      lastOffset: run.lastOffset,
      createdAt: iso(run.createdAt),
      endedAt: run.endedAt === null ? null : iso(run.endedAt),
    })),
  };
}
