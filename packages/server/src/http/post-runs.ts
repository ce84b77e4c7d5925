import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { authorizeOrThrow, newToken, tokenPolicy } from '../auth.js';
import { parseRunRequest } from '../input.js';
import type { RunRecord, ThreadRecord } from '../stores/types.js';
import type { RouteContext } from './context.js';

/** `POST /runs`: start a run (a new thread when none is named), or answer a retry. */
export function postRunsRoute(ctx: RouteContext, maxBodyBytes: number): Hono {
  const { store, authorize, manager } = ctx;
  const routes = new Hono();

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

  const answerExisting = async (
    request: Request,
    run: RunRecord,
    threadId: string | undefined,
    wantsStream: boolean,
  ): Promise<Response> => {
    if (threadId !== undefined && threadId !== run.threadId) {
      throw new ResumableError('bad_request', `runId ${run.runId} belongs to another thread`);
    }
    const thread = await ctx.loadThread(run.threadId);
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
    const location = `${new URL(request.url).pathname.replace(/\/$/, '')}/${run.runId}`;
    if (wantsStream) return streamAnswer(run, thread.token, location);
    return Response.json(
      { runId: run.runId, threadId: run.threadId, token: thread.token },
      { status: 200, headers: { Location: location } },
    );
  };

  /** `Accept: text/event-stream`: the run's stream from offset 1, with its headers. */
  const streamAnswer = async (
    run: RunRecord,
    token: string,
    location: string,
  ): Promise<Response> => {
    const response = await ctx.eventsResponse(run, 0);
    response.headers.set('Resumable-Run-Id', run.runId);
    response.headers.set('Resumable-Token', token);
    response.headers.set('Location', location);
    return response;
  };

  routes.post(
    '/runs',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ResumableError(
          'payload_too_large',
          `the request body is over the limit of ${maxBodyBytes} bytes`,
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
        if (existing) return answerExisting(request, existing, parsed.threadId, wantsStream);
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
        thread = (await store.createThread(fresh)) ? fresh : await ctx.loadThread(threadId);
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
      const location = `${c.req.path.replace(/\/$/, '')}/${runId}`;
      if (wantsStream) return streamAnswer(run, thread.token, location);
      return new Response(JSON.stringify({ runId, threadId, token: thread.token }), {
        status: 201,
        headers: { 'Content-Type': 'application/json', Location: location },
      });
    },
  );

  return routes;
}
