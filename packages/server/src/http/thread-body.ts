import { interruptViews } from '../runs/interrupts.js';
import type { RunRecord, ThreadRecord } from '../stores/types.js';
import type { RouteContext } from './context.js';

/**
 * The thread body that `GET /threads/:id`, `PATCH /threads/:id` and `POST /threads` answer
 * (protocol.md, "Threads"): the thread and its newest `limit` runs, the thread stream's
 * `lastOffset`, and whether it waits on interrupts.
 */
export async function threadBody(ctx: RouteContext, thread: ThreadRecord, limit: number) {
  const { threadId } = thread;
  // Read before the runs: what is announced after it is then never missed (it may repeat).
  const { last: lastOffset } = await ctx.manager.threads.head(threadId);
  const runs = await ctx.store.listRuns(threadId, limit);
  // The newest run's interrupts, or those of the run before it (which the newest one
  // answered): open or answered, the card survives a reload. Only two snapshots are read.
  const interrupted = runs.slice(0, 2).find((run) => run.snapshot?.outcome?.type === 'interrupt');
  const interrupts = interrupted?.snapshot
    ? await interruptViews(ctx.store, interrupted.snapshot)
    : [];
  return {
    ...threadJson(thread, runs),
    lastOffset,
    waiting: interrupts.some((i) => i.status === 'open'),
    interrupts,
  };
}

/**
 * The thread and its runs. `updatedAt` is the thread's last activity: its newest run's
 * start or end, or its last rename, whichever is later.
 */
function threadJson(thread: ThreadRecord, runs: readonly RunRecord[]) {
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
