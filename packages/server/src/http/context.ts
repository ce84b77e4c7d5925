import { ResumableError, SSE_HEADERS } from '@resumable/protocol';
import type { Context } from 'hono';
import { type Authorize, authorizeOrThrow } from '../auth.js';
import { MAX_MESSAGE_PAGE } from '../defaults.js';
import type { RunManager } from '../runs/run-manager.js';
import { sleep } from '../sleep.js';
import type { EventStore, RunRecord, ThreadRecord } from '../stores/types.js';
import type { Subscription } from '../streams/subscription.js';
import type { StreamQuota } from './stream-quota.js';

/** What every route module needs: the manager, its store and the access policy. */
export class RouteContext {
  readonly store: EventStore;

  constructor(
    readonly manager: RunManager,
    readonly authorize: Authorize,
    /** Open streams per client address, and how to tell a request's address. */
    private readonly streams: { quota: StreamQuota; address: (c: Context) => string },
  ) {
    this.store = manager.store;
  }

  async loadRun(runId: string): Promise<RunRecord> {
    const run = await this.store.getRun(runId);
    if (!run) throw new ResumableError('run_not_found', `no run ${runId}`);
    return run;
  }

  async loadThread(threadId: string): Promise<ThreadRecord> {
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new ResumableError('thread_not_found', `no thread ${threadId}`);
    return thread;
  }

  /**
   * The run, once a racing request (on another instance) has created it; null after
   * `timeoutMs`. Only a duplicate of a thread's first POST, which knows its secret runId,
   * ever waits here.
   */
  async waitForRun(runId: string, timeoutMs: number): Promise<RunRecord | null> {
    const until = Date.now() + timeoutMs;
    for (let i = 0; i < 1000 && Date.now() < until; i++) {
      const run = await this.store.getRun(runId);
      if (run) return run;
      await sleep(10);
    }
    return null;
  }

  /** The run and its thread, once the request may `action` them. */
  async readRun(request: Request, runId: string, action: 'read' | 'cancel') {
    const run = await this.loadRun(runId);
    const thread = await this.loadThread(run.threadId);
    await authorizeOrThrow(this.authorize, request, {
      action,
      threadId: run.threadId,
      runId,
      thread,
    });
    return { run, thread };
  }

  /**
   * Takes one of the client's open-stream slots (or throws `429`) for a stream opened
   * later: `POST /runs` takes it before storing anything. Returns its release.
   */
  reserveStream(c: Context): () => void {
    return this.streams.quota.take(this.streams.address(c));
  }

  /**
   * The event stream after `after`, `204`, or the error `openStream` gave; `reserved`: the
   * slot `reserveStream` took for it (else one is taken now).
   */
  async eventsResponse(
    c: Context,
    run: RunRecord,
    after: number,
    reserved?: () => void,
  ): Promise<Response> {
    const open = async () => {
      const opened = await this.manager.openStream(run, after);
      if (opened.kind === 'error') throw opened.error;
      return opened.kind === 'no-content' ? null : opened.subscription;
    };
    return this.streamResponse(c, open, reserved);
  }

  /**
   * The SSE response of the subscription `open` gives (`204` for none), counted against
   * the client's open streams from before it opens until it closes.
   */
  async streamResponse(
    c: Context,
    open: () => Promise<Subscription | null>,
    reserved?: () => void,
  ): Promise<Response> {
    const release = reserved ?? this.reserveStream(c);
    let subscription: Subscription | null;
    try {
      subscription = await open();
    } catch (error) {
      release();
      throw error;
    }
    if (!subscription) {
      release();
      return new Response(null, { status: 204 });
    }
    subscription.onClosed(release);
    return new Response(subscription.stream, { status: 200, headers: { ...SSE_HEADERS } });
  }
}

export function pageLimit(text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9][0-9]{0,3}$/.test(text) || Number(text) > MAX_MESSAGE_PAGE) {
    throw new ResumableError(
      'bad_request',
      `limit must be an integer from 1 to ${MAX_MESSAGE_PAGE}`,
    );
  }
  return Number(text);
}
