import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError, resumePointOf, SSE_HEADERS } from '@resumable/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { type Authorize, authorizeOrThrow, newToken, tokenOf, tokenPolicy } from './auth.js';
import { parseRunRequest } from './input.js';
import type { RunManager } from './run-manager.js';
import type { RunRecord, ThreadRecord } from './stores/types.js';

export interface HttpOptions {
  manager: RunManager;
  authorize: Authorize;
  /** Origins allowed to call the API from a browser; none by default. */
  corsOrigins: readonly string[];
  maxBodyBytes: number;
  /** Mount point of every route, e.g. `/api`; `''` for the root. */
  basePath: string;
  /** Requests wait for it, so nobody reads a run that start-up is about to close. */
  ready?: Promise<void>;
}

const RUN_HEADERS = ['Resumable-Run-Id', 'Resumable-Token', 'Location', 'Retry-After'];
const MAX_PAGE = 200;

/** The protocol.md endpoints as a Hono app (a Web `(Request) => Response` handler). */
export function createHttpApp(options: HttpOptions): Hono {
  const { manager, authorize } = options;
  const store = manager.store;
  const root = new Hono();
  const app = options.basePath && options.basePath !== '/' ? root.basePath(options.basePath) : root;

  root.onError((error) => errorResponse(error));
  const ready = options.ready;
  if (ready) {
    root.use('*', async (_c, next) => {
      await ready;
      await next();
    });
  }
  root.notFound((c) =>
    errorResponse(new ResumableError('not_found', `no route ${c.req.method} ${c.req.path}`)),
  );

  if (options.corsOrigins.length > 0) {
    const allowed = new Set(options.corsOrigins);
    app.use(
      '*',
      cors({
        origin: (origin) => (allowed.has(origin) ? origin : null),
        allowMethods: ['GET', 'POST', 'OPTIONS'],
        allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Accept'],
        exposeHeaders: RUN_HEADERS,
        maxAge: 600,
      }),
    );
  }

  const loadRun = async (runId: string): Promise<RunRecord> => {
    const run = await store.getRun(runId);
    if (!run) throw new ResumableError('run_not_found', `no run ${runId}`);
    return run;
  };
  /** The run, once a racing request has created it (bounded: 5 s, for a loaded machine). */
  const waitForRun = async (runId: string): Promise<RunRecord | null> => {
    const until = Date.now() + 5000;
    for (let i = 0; i < 1000 && Date.now() < until; i++) {
      const run = await store.getRun(runId);
      if (run) return run;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return null;
  };
  const loadThread = async (threadId: string): Promise<ThreadRecord> => {
    const thread = await store.getThread(threadId);
    if (!thread) throw new ResumableError('thread_not_found', `no thread ${threadId}`);
    return thread;
  };
  const readRun = async (request: Request, runId: string, action: 'read' | 'cancel') => {
    const run = await loadRun(runId);
    const thread = await loadThread(run.threadId);
    await authorizeOrThrow(authorize, request, { action, threadId: run.threadId, runId, thread });
    return { run, thread };
  };

  app.post(
    '/runs',
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new ResumableError(
          'payload_too_large',
          `the request body is over the limit of ${options.maxBodyBytes} bytes`,
        );
      },
    }),
    async (c) => {
      const request = c.req.raw;
      const text = await c.req.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ResumableError('bad_request', 'the body is not valid JSON');
      }
      const parsed = parseRunRequest(body);
      const wantsStream = (c.req.header('accept') ?? '').includes('text/event-stream');

      // An idempotent retry: the runId is the secret, so no token is needed to learn it again.
      if (parsed.runId !== undefined) {
        const existing = await store.getRun(parsed.runId);
        if (existing) return answerExisting(c.req.raw, existing, parsed.threadId, wantsStream);
      }

      const threadId = parsed.threadId ?? crypto.randomUUID();
      const runId = parsed.runId ?? crypto.randomUUID();
      let thread = await store.getThread(threadId);
      try {
        await authorizeOrThrow(authorize, request, { action: 'create', threadId, runId, thread });
      } catch (error) {
        // The same POST sent twice on a new thread: the first created the thread a moment
        // ago and is creating the run. Answer as a retry once it exists.
        const fresh = thread !== null && Date.now() - thread.createdAt < 5000;
        if (fresh && parsed.runId !== undefined && authorize === tokenPolicy) {
          const raced = await waitForRun(parsed.runId);
          if (raced) return answerExisting(request, raced, parsed.threadId, wantsStream);
        }
        throw error;
      }
      if (!thread) {
        const fresh: ThreadRecord = { threadId, token: newToken(), createdAt: Date.now() };
        thread = (await store.createThread(fresh)) ? fresh : await loadThread(threadId);
        if (thread !== fresh) {
          // Another request created it first. The same runId is a racing retry (its runId
          // is its credential): answer it once that request has created the run. With a
          // shared store the two may even run on different instances.
          if (parsed.runId !== undefined) {
            const raced = await waitForRun(parsed.runId);
            if (raced) return answerExisting(request, raced, parsed.threadId, wantsStream);
          }
          // Otherwise its token is required like for any thread.
          await authorizeOrThrow(authorize, request, { action: 'create', threadId, runId, thread });
        }
      }
      const input = { ...parsed, threadId, runId, state: parsed.state ?? {} } as RunAgentInput;
      const { created, run } = await manager.startRun(input);
      if (!created) return answerExisting(request, run, threadId, wantsStream);
      const token = tokenForAnswer(request, thread);
      const location = `${c.req.path.replace(/\/$/, '')}/${runId}`;
      if (wantsStream) return streamAnswer(run, token, location, 0);
      return new Response(JSON.stringify({ runId, threadId, token }), {
        status: 201,
        headers: { 'Content-Type': 'application/json', Location: location },
      });
    },
  );

  const answerExisting = async (
    request: Request,
    run: RunRecord,
    threadId: string | undefined,
    wantsStream: boolean,
  ): Promise<Response> => {
    if (threadId !== undefined && threadId !== run.threadId) {
      throw new ResumableError('bad_request', `runId ${run.runId} belongs to another thread`);
    }
    const thread = await loadThread(run.threadId);
    // Under the token policy the runId is the credential of a retry; an application's
    // own policy still decides.
    if (authorize !== tokenPolicy) {
      await authorizeOrThrow(authorize, request, {
        action: 'create',
        threadId: run.threadId,
        runId: run.runId,
        thread,
      });
    }
    const token = tokenForAnswer(request, thread);
    const location = `${new URL(request.url).pathname.replace(/\/$/, '')}/${run.runId}`;
    if (wantsStream) return streamAnswer(run, token, location, 0);
    return Response.json(
      { runId: run.runId, threadId: run.threadId, token },
      { status: 200, headers: { Location: location } },
    );
  };

  const streamAnswer = async (
    run: RunRecord,
    token: string,
    location: string,
    after: number,
  ): Promise<Response> => {
    const response = await eventsResponse(run, after);
    response.headers.set('Resumable-Run-Id', run.runId);
    response.headers.set('Resumable-Token', token);
    response.headers.set('Location', location);
    return response;
  };

  const eventsResponse = async (run: RunRecord, after: number): Promise<Response> => {
    const opened = await manager.openStream(run, after);
    if (opened.kind === 'error') throw opened.error;
    if (opened.kind === 'no-content') return new Response(null, { status: 204 });
    return new Response(opened.subscription.stream, { status: 200, headers: { ...SSE_HEADERS } });
  };

  app.get('/runs/:runId/events', async (c) => {
    const { run } = await readRun(c.req.raw, c.req.param('runId'), 'read');
    const after = resumePointOf(c.req.query('after'), c.req.header('last-event-id'));
    const response = await eventsResponse(run, after);
    return response;
  });

  app.get('/runs/:runId', async (c) => {
    const { run } = await readRun(c.req.raw, c.req.param('runId'), 'read');
    return c.json(await manager.snapshot(run));
  });

  app.post('/runs/:runId/cancel', async (c) => {
    const { run } = await readRun(c.req.raw, c.req.param('runId'), 'cancel');
    await manager.cancel(run.runId);
    return c.json({ runId: run.runId, cancelled: true }, 202);
  });

  app.get('/threads/:threadId', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await loadThread(threadId);
    await authorizeOrThrow(authorize, c.req.raw, { action: 'read', threadId, thread });
    const limit = pageLimit(c.req.query('limit'), 20);
    const runs = await store.listRuns(threadId, limit);
    return c.json({
      threadId,
      createdAt: new Date(thread.createdAt).toISOString(),
      runs: runs.map((run) => ({
        runId: run.runId,
        status: run.status,
        lastOffset: run.lastOffset,
        createdAt: new Date(run.createdAt).toISOString(),
        endedAt: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
      })),
    });
  });

  app.get('/threads/:threadId/messages', async (c) => {
    const threadId = c.req.param('threadId');
    const thread = await loadThread(threadId);
    await authorizeOrThrow(authorize, c.req.raw, { action: 'read', threadId, thread });
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
    return c.json(await store.listMessages(threadId, before, limit));
  });

  return root;
}

/**
 * The token to hand back. The thread's own token under the default policy; with a custom
 * `authorize` the application's credentials rule, but clients still get the capability.
 */
function tokenForAnswer(_request: Request, thread: ThreadRecord): string {
  return thread.token;
}

function pageLimit(text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > MAX_PAGE) {
    throw new ResumableError('bad_request', `limit must be an integer from 1 to ${MAX_PAGE}`);
  }
  return Number(text);
}

export function errorResponse(error: unknown): Response {
  const resumable =
    error instanceof ResumableError
      ? error
      : new ResumableError('internal', 'internal server error', { cause: error });
  if (!(error instanceof ResumableError)) console.error('[resumable] internal error:', error);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (resumable.code === 'too_many_requests') {
    headers['Retry-After'] = String(resumable.retryAfter ?? 1);
  }
  return new Response(JSON.stringify(resumable.toBody()), {
    status: resumable.status ?? 500,
    headers,
  });
}

export { tokenOf };
