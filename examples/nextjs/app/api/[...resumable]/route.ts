import { createResumableHandler, type ResumableHandler } from '@resumable/server';
import { pickAgent } from '../../../lib/agent';

// Node, not the Edge runtime: the SQLite store is a native module, and each run goes on in
// this process after the request that started it has been answered.
export const runtime = 'nodejs';

// One handler per process, made on the first request: `next build` loads this module to
// read its config (no store should open then), and `next dev` evaluates it again on every
// edit (a second handler would run a second set of runs on the same store).
const shared = globalThis as { resumable?: ResumableHandler };

function resumable(request: Request): Promise<Response> {
  shared.resumable ??= createResumableHandler({
    // Every protocol route under /api: /api/runs, /api/runs/:id/events, /api/threads/…
    basePath: '/api',
    // SQLite in .data/ by default; a redis:// URL shares runs between several instances.
    store: process.env.RESUMABLE_STORE || 'sqlite:.data/resumable.db',
    agent: pickAgent(),
    // The per-client limits (open streams, runs per minute) count by address. Next.js puts
    // the socket's address in x-forwarded-for when a request has none; behind a proxy that
    // appends to it, the last entry is the client as that proxy saw it.
    clientAddress: (req) => req.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() || null,
  });
  return shared.resumable(request);
}

export { resumable as DELETE, resumable as GET, resumable as PATCH, resumable as POST };
