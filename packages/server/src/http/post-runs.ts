import { ResumableError } from '@resumable/protocol';
import { type Context, Hono } from 'hono';
import { authorizeOrThrow, newToken, tokenPolicy } from '../auth.js';
import { FRESH_THREAD_MS } from '../defaults.js';
import { checkFileReferences } from '../files/references.js';
import type { RunRequest } from '../input.js';
import { notOpen } from '../runs/interrupts.js';
import { type AcceptedRunRequest, acceptRunRequest } from '../runs/run-request.js';
import type { FileStore, RunRecord, ThreadRecord } from '../stores/types.js';
import type { RouteContext } from './context.js';
import { bodyText, refuseDeclared } from './request-body.js';

export interface PostRunsOptions {
  maxBodyBytes: number;
  /** Uploaded files (prompts may name only their own thread's) and the routes' mount point. */
  files: FileStore;
  basePath: string;
  /** The client's key for the per-address limits (`addressKeys`: unknown ones share one). */
  clientAddress: (c: Context) => string;
}

/** A run this request created, or one that existed (a retry, a racing duplicate). */
type Started = { created: RunRecord; thread: ThreadRecord } | { existing: RunRecord };

/** The open-stream slot a POST with `Accept: text/event-stream` took; null for a JSON answer. */
type StreamSlot = (() => void) | null;

/** `POST /runs`: start a run (a new thread when none is named), or answer a retry. */
export function postRunsRoute(ctx: RouteContext, options: PostRunsOptions): Hono {
  const { store, authorize, manager } = ctx;
  const routes = new Hono();
  /** POSTs with a client-chosen runId being handled here: a duplicate waits for the first. */
  const inflight = new Map<string, Promise<RunRecord | null>>();

  const answerExisting = async (
    c: Context,
    run: RunRecord,
    threadId: string | undefined,
    slot: StreamSlot,
  ): Promise<Response> => {
    if (threadId !== undefined && threadId !== run.threadId) {
      throw new ResumableError('bad_request', `runId ${run.runId} belongs to another thread`);
    }
    const thread = await ctx.loadThread(run.threadId);
    // Under the token policy the runId is the credential of a retry; an application's
    // own policy still decides.
    if (authorize !== tokenPolicy) {
      await authorizeOrThrow(authorize, c.req.raw, {
        action: 'create',
        threadId: run.threadId,
        runId: run.runId,
        thread,
      });
    }
    return answer(c, run, thread, 200, slot);
  };

  /** The run's ids and token (201 or 200), or with `Accept: text/event-stream` its stream. */
  const answer = async (
    c: Context,
    run: RunRecord,
    thread: ThreadRecord,
    status: 200 | 201,
    slot: StreamSlot,
  ) => {
    const location = `${c.req.path.replace(/\/$/, '')}/${run.runId}`;
    if (slot) {
      const response = await ctx.eventsResponse(c, run, 0, slot);
      response.headers.set('Resumable-Run-Id', run.runId);
      response.headers.set('Resumable-Token', thread.token);
      response.headers.set('Location', location);
      return response;
    }
    const body = { runId: run.runId, threadId: run.threadId, token: thread.token };
    return c.json(body, status, { Location: location });
  };

  /** Creates the thread if needed, authorizes, admits and starts the run. */
  const start = async (c: Context, accepted: AcceptedRunRequest): Promise<Started> => {
    const { parsed, input, bytes } = accepted;
    const { threadId, runId } = input;
    let thread = await store.getThread(threadId);
    // A duplicate of the POST that created this thread a moment ago (possibly sent to
    // another instance): only its runId, a secret, proves it; it waits for that run, briefly.
    const twinRun = async (error: unknown, existing: ThreadRecord): Promise<Started> => {
      const twin =
        authorize === tokenPolicy &&
        parsed.runId !== undefined &&
        existing.firstRunId === parsed.runId &&
        Date.now() - existing.createdAt < FRESH_THREAD_MS;
      const raced = twin ? await ctx.waitForRun(runId, FRESH_THREAD_MS) : null;
      if (raced) return { existing: raced };
      throw error;
    };
    try {
      await authorizeOrThrow(authorize, c.req.raw, { action: 'create', threadId, runId, thread });
    } catch (error) {
      if (thread === null) throw error;
      return twinRun(error, thread);
    }
    // File parts must name this thread's own uploads (a new thread has none).
    const files = thread ? options.files : null;
    await checkFileReferences(input.messages, threadId, options.basePath, files);
    let threadExists = thread !== null;
    let createdHere = false;
    const address = options.clientAddress(c);
    if (!thread) {
      if (typeof accepted.parentMessageId === 'string') {
        throw new ResumableError('message_not_found', `thread ${threadId} has no messages yet`);
      }
      // A POST refused for a limit must not leave its new thread behind (a retry would
      // then need the token it was never given); a new thread has no interrupt to answer.
      const [answer] = input.resume ?? [];
      if (answer) throw notOpen(answer.interruptId, threadId);
      await manager.checkAdmission(input, { address, threadExists: false, bytes });
      const fresh: ThreadRecord = {
        threadId,
        token: newToken(),
        createdAt: Date.now(),
        ...(parsed.runId === undefined ? {} : { firstRunId: parsed.runId }),
      };
      createdHere = await store.createThread(fresh);
      thread = createdHere ? fresh : await store.getThread(threadId);
      // Refused, yet no thread: the id is a deleted thread's, never a thread again (a
      // retry of its first POST included).
      if (!thread) throw new ResumableError('thread_not_found', `thread ${threadId} was deleted`);
      if (thread !== fresh) {
        // Another request created it first: its token is required like for any thread.
        threadExists = true;
        try {
          await authorizeOrThrow(authorize, c.req.raw, {
            action: 'create',
            threadId,
            runId,
            thread,
          });
        } catch (error) {
          return twinRun(error, thread);
        }
      }
    }
    try {
      const { created, run } = await manager.startRun(
        input,
        { address, threadExists, bytes, thread },
        accepted.parentMessageId,
      );
      return created ? { created: run, thread } : { existing: run };
    } catch (error) {
      // A thread this request made and could not start a run on goes too: its token was
      // never given, so every retry of the POST (told to retry by a 503) would get 401.
      if (createdHere) await forgetThread(ctx, threadId);
      throw error;
    }
  };

  const tooLarge = () =>
    new ResumableError(
      'payload_too_large',
      `the request body is over the limit of ${options.maxBodyBytes} bytes`,
    );

  routes.post('/runs', async (c) => {
    // Refused from the headers, before the body is read: a body declared too large, and
    // a stream the client has no slot for. The stream's slot is taken before anything is
    // stored (a POST refused 429 for it stores nothing); the stream's response releases
    // it, a failure before that here.
    refuseDeclared(c, options.maxBodyBytes, tooLarge);
    const slot = (c.req.header('accept') ?? '').includes('text/event-stream')
      ? ctx.reserveStream(c)
      : null;
    try {
      const text = await bodyText(c, options.maxBodyBytes, tooLarge);
      // Everything that could fail later is refused here, before anything is stored.
      const accepted = acceptRunRequest(text, {
        maxBodyBytes: options.maxBodyBytes,
        validate: (input) => manager.validate(input),
      });
      return await respond(c, accepted, slot);
    } catch (error) {
      slot?.();
      throw error;
    }
  });

  const respond = async (
    c: Context,
    accepted: AcceptedRunRequest,
    slot: StreamSlot,
  ): Promise<Response> => {
    const { parsed } = accepted;
    if (parsed.runId === undefined) return finish(c, parsed, await start(c, accepted), slot);
    // An idempotent retry: the runId is the secret, so no token is needed to learn it again.
    const twin = inflight.get(parsed.runId);
    const existing = (twin && (await twin)) || (await store.getRun(parsed.runId));
    if (existing) return answerExisting(c, existing, parsed.threadId, slot);
    const starting = start(c, accepted);
    const settled = starting.then(
      (result) => ('created' in result ? result.created : result.existing),
      () => null,
    );
    inflight.set(parsed.runId, settled);
    try {
      return await finish(c, parsed, await starting, slot);
    } finally {
      if (inflight.get(parsed.runId) === settled) inflight.delete(parsed.runId);
    }
  };

  const finish = (
    c: Context,
    parsed: RunRequest,
    result: Started,
    slot: StreamSlot,
  ): Promise<Response> =>
    'created' in result
      ? answer(c, result.created, result.thread, 201, slot)
      : answerExisting(c, result.existing, parsed.threadId, slot);

  return routes;
}

/** Removes a thread that has no run (best effort: a store that is down keeps it). */
async function forgetThread(ctx: RouteContext, threadId: string): Promise<void> {
  try {
    if ((await ctx.store.listRuns(threadId, 1)).length === 0) {
      // No tombstone: the POST's retry makes it again.
      await ctx.store.threadEdits.remove(threadId, { tombstone: false });
    }
  } catch (error) {
    ctx.manager.log(
      `thread ${threadId}: not removed after its first run failed to start: ${String(error)}`,
    );
  }
}
