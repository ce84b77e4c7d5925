import { resumePointOf } from '@resumable/protocol';
import { Hono } from 'hono';
import { interruptViews } from '../runs/interrupts.js';
import type { RouteContext } from './context.js';

/** `GET /runs/:id/events`, `GET /runs/:id`, `POST /runs/:id/cancel`. */
export function runRoutes(ctx: RouteContext): Hono {
  const routes = new Hono();

  routes.get('/runs/:runId/events', async (c) => {
    const { run } = await ctx.readRun(c.req.raw, c.req.param('runId'), 'read');
    const after = resumePointOf(c.req.query('after'), c.req.header('last-event-id'));
    return ctx.eventsResponse(c, run, after);
  });

  routes.get('/runs/:runId', async (c) => {
    const { run } = await ctx.readRun(c.req.raw, c.req.param('runId'), 'read');
    const snapshot = await ctx.manager.snapshot(run);
    const interrupts = await interruptViews(ctx.store, snapshot);
    return c.json(interrupts.length > 0 ? { ...snapshot, interrupts } : snapshot);
  });

  routes.post('/runs/:runId/cancel', async (c) => {
    const { run } = await ctx.readRun(c.req.raw, c.req.param('runId'), 'cancel');
    await ctx.manager.cancel(run.runId);
    return c.json({ runId: run.runId, cancelled: true }, 202);
  });

  return routes;
}
