import type { RunAgentInput, RunMessage, RunSnapshot, RunStatus } from '@resumable/protocol';
import { isPlainObject, parseSnapshot, ResumableError } from '@resumable/protocol';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../base/defaults.js';
import type { ObservedScope } from '../base/observe.js';
import type { JsonRequest, RequestLimits } from './http.js';
import { requestJson, withTimeout } from './http.js';

/**
 * Extra request headers, evaluated before every request (a fresh auth token per attempt,
 * partysocket's habit of re-evaluating the URL).
 */
export type HeadersOption =
  | Record<string, string>
  | ((context: {
      runId?: string;
      threadId?: string;
    }) => Record<string, string> | Promise<Record<string, string>>);

/**
 * A run that exists on the server: its id, its thread, and the thread's capability (null
 * where the server issues none). What `POST /runs` answers and what a session follows.
 */
export interface StartedRun {
  /** The run's id (chosen by the client, so a retried POST starts it once). */
  runId: string;
  /** The thread it runs in (new when the request named none). */
  threadId: string;
  /** The thread's token (`Authorization: Bearer`), for every read of the run and thread. */
  token: string | null;
}

export interface ThreadRun {
  runId: string;
  status: RunStatus;
}

export interface HistoryPage {
  messages: RunMessage[];
  nextBefore: string | null;
}

export interface ApiOptions {
  /** Base URL of the protocol's endpoints, e.g. `/api`. */
  endpoint: string;
  fetch: typeof fetch;
  now(): number;
  headers?: HeadersOption | undefined;
  /**
   * Every request (start, snapshot, cancel, thread, history) settles within this, or
   * fails with `timeout` (retried by the policy). @default 15000
   */
  requestTimeoutMs?: number | undefined;
  /** The session's key: its requests are told to the observers as its (`observeClient`). */
  key?: string | undefined;
}

/** The protocol's endpoints (docs/protocol.md) as typed calls; errors are `ResumableError`s. */
export class RunApi {
  readonly endpoint: string;
  /** The conversation its requests are for, as the observers see it (undefined: untold). */
  readonly scope: ObservedScope | undefined;
  constructor(private readonly options: ApiOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
    this.scope =
      options.key === undefined ? undefined : { endpoint: this.endpoint, key: options.key };
  }

  get fetch(): typeof fetch {
    return this.options.fetch;
  }

  async headers(
    token: string | null,
    context: { runId?: string; threadId?: string } = {},
  ): Promise<Record<string, string>> {
    const extra = this.options.headers;
    // An app's headers function (a token refresh) is a wait like any other: bounded.
    const resolved =
      typeof extra === 'function'
        ? await withTimeout(
            Promise.resolve(extra(context)),
            this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
            'the headers option',
          )
        : (extra ?? {});
    return token ? { Authorization: `Bearer ${token}`, ...resolved } : { ...resolved };
  }

  /** The limits of every request made with this API (the thread endpoints' too). */
  get limits(): RequestLimits {
    const { requestTimeoutMs } = this.options;
    return requestTimeoutMs === undefined ? {} : { timeoutMs: requestTimeoutMs };
  }

  private request<T>(url: string, request: JsonRequest): Promise<{ status: number; body: T }> {
    const told = this.scope ? { ...request, observe: this.scope } : request;
    return requestJson<T>(this.options.fetch, url, told, this.options.now, this.limits);
  }

  eventsUrl(runId: string, after: number): string {
    return `${this.endpoint}/runs/${encodeURIComponent(runId)}/events?after=${after}`;
  }

  async startRun(input: Partial<RunAgentInput>, token: string | null): Promise<StartedRun> {
    const context: { runId?: string; threadId?: string } = {};
    if (input.runId) context.runId = input.runId;
    if (input.threadId) context.threadId = input.threadId;
    const { body } = await this.request<unknown>(`${this.endpoint}/runs`, {
      method: 'POST',
      headers: await this.headers(token, context),
      body: input,
    });
    const started = startedRunOf(body, input, token);
    if (started === null) {
      // An empty 204, a proxy's empty 200, a body naming another run: no run is known to exist.
      throw new ResumableError('unexpected_response', 'POST /runs answered without its run');
    }
    return started;
  }

  async getRun(runId: string, token: string | null): Promise<RunSnapshot> {
    const { body } = await this.request<unknown>(
      `${this.endpoint}/runs/${encodeURIComponent(runId)}`,
      { headers: await this.headers(token, { runId }) },
    );
    const snapshot = parseSnapshot(body, runId);
    if (snapshot instanceof ResumableError) throw snapshot;
    return snapshot;
  }

  async cancelRun(runId: string, token: string | null): Promise<void> {
    await this.request(`${this.endpoint}/runs/${encodeURIComponent(runId)}/cancel`, {
      method: 'POST',
      headers: await this.headers(token, { runId }),
    });
  }

  /**
   * `GET /threads/{id}`'s body, unchecked (each reader checks the fields it takes: the runs,
   * the interrupts, the thread stream's `lastOffset`); `signal` ends the read (`aborted`).
   */
  async threadBody(
    threadId: string,
    token: string | null,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown> | null> {
    const { body } = await this.request<unknown>(
      `${this.endpoint}/threads/${encodeURIComponent(threadId)}`,
      { headers: await this.headers(token, { threadId }), signal },
    );
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
  }

  /** The thread's runs, newest first; `signal` ends the read (`aborted`). */
  async getThread(
    threadId: string,
    token: string | null,
    signal?: AbortSignal,
  ): Promise<ThreadRun[]> {
    const body = await this.threadBody(threadId, token, signal);
    const runs = Array.isArray(body?.runs) ? body.runs : [];
    return runs.filter(
      (run): run is ThreadRun =>
        typeof run === 'object' &&
        run !== null &&
        typeof (run as ThreadRun).runId === 'string' &&
        typeof (run as ThreadRun).status === 'string',
    );
  }

  async getThreadMessages(
    threadId: string,
    token: string | null,
    page: { before?: string | null; limit?: number; through?: string | null },
    signal?: AbortSignal,
  ): Promise<HistoryPage> {
    const query = new URLSearchParams();
    if (page.before) query.set('before', page.before);
    if (page.limit) query.set('limit', String(page.limit));
    // One branch of the thread's tree: the one through this message (its newest descendants).
    if (page.through) query.set('through', page.through);
    const qs = query.toString();
    const { body } = await this.request<{ messages?: unknown; nextBefore?: unknown } | null>(
      `${this.endpoint}/threads/${encodeURIComponent(threadId)}/messages${qs ? `?${qs}` : ''}`,
      { headers: await this.headers(token, { threadId }), signal },
    );
    const nextBefore = body?.nextBefore;
    return {
      messages: Array.isArray(body?.messages) ? (body.messages as RunMessage[]) : [],
      nextBefore:
        typeof nextBefore === 'string' || typeof nextBefore === 'number'
          ? String(nextBefore)
          : null,
    };
  }
}

/**
 * The run a `POST /runs` answer names, checked before it is adopted: a JSON object with
 * string `runId` and `threadId` matching the request's (when it named them) and, for a new
 * thread the client holds no token for, the thread's `token`. Never the input's ids filled
 * in: an empty 2xx is not a started run.
 */
function startedRunOf(
  body: unknown,
  input: Partial<RunAgentInput>,
  token: string | null,
): StartedRun | null {
  if (!isPlainObject(body)) return null;
  const { runId, threadId, token: issued } = body;
  if (typeof runId !== 'string' || runId === '') return null;
  if (typeof threadId !== 'string' || threadId === '') return null;
  if (input.runId !== undefined && runId !== input.runId) return null;
  if (input.threadId !== undefined && threadId !== input.threadId) return null;
  if (issued !== undefined && typeof issued !== 'string') return null;
  if (issued === undefined && token === null && input.threadId === undefined) return null;
  return { runId, threadId, token: typeof issued === 'string' ? issued : token };
}
