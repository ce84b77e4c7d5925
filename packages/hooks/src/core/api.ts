import type { RunAgentInput, RunMessage, RunSnapshot, RunStatus } from '@resumable/protocol';
import { requestJson } from './http.js';

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

export interface StartedRun {
  runId: string;
  threadId: string;
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
}

/** The protocol's endpoints (docs/protocol.md) as typed calls; errors are `ResumableError`s. */
export class RunApi {
  readonly endpoint: string;
  constructor(private readonly options: ApiOptions) {
    this.endpoint = options.endpoint.replace(/\/+$/, '');
  }

  get fetch(): typeof fetch {
    return this.options.fetch;
  }

  async headers(
    token: string | null,
    context: { runId?: string; threadId?: string } = {},
  ): Promise<Record<string, string>> {
    const extra = this.options.headers;
    const resolved = typeof extra === 'function' ? await extra(context) : (extra ?? {});
    return token ? { Authorization: `Bearer ${token}`, ...resolved } : { ...resolved };
  }

  eventsUrl(runId: string, after: number): string {
    return `${this.endpoint}/runs/${encodeURIComponent(runId)}/events?after=${after}`;
  }

  async startRun(input: Partial<RunAgentInput>, token: string | null): Promise<StartedRun> {
    const context: { runId?: string; threadId?: string } = {};
    if (input.runId) context.runId = input.runId;
    if (input.threadId) context.threadId = input.threadId;
    const { body } = await requestJson<Partial<StartedRun> | null>(
      this.options.fetch,
      `${this.endpoint}/runs`,
      { method: 'POST', headers: await this.headers(token, context), body: input },
      this.options.now,
    );
    return {
      runId: String(body?.runId ?? input.runId ?? ''),
      threadId: String(body?.threadId ?? input.threadId ?? ''),
      token: typeof body?.token === 'string' ? body.token : token,
    };
  }

  async getRun(runId: string, token: string | null): Promise<RunSnapshot> {
    const { body } = await requestJson<RunSnapshot>(
      this.options.fetch,
      `${this.endpoint}/runs/${encodeURIComponent(runId)}`,
      { headers: await this.headers(token, { runId }) },
      this.options.now,
    );
    return body;
  }

  async cancelRun(runId: string, token: string | null): Promise<void> {
    await requestJson(
      this.options.fetch,
      `${this.endpoint}/runs/${encodeURIComponent(runId)}/cancel`,
      { method: 'POST', headers: await this.headers(token, { runId }) },
      this.options.now,
    );
  }

  /** The thread's runs, newest first. */
  async getThread(threadId: string, token: string | null): Promise<ThreadRun[]> {
    const { body } = await requestJson<{ runs?: unknown } | null>(
      this.options.fetch,
      `${this.endpoint}/threads/${encodeURIComponent(threadId)}`,
      { headers: await this.headers(token, { threadId }) },
      this.options.now,
    );
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
    page: { before?: string | null; limit?: number },
  ): Promise<HistoryPage> {
    const query = new URLSearchParams();
    if (page.before) query.set('before', page.before);
    if (page.limit) query.set('limit', String(page.limit));
    const qs = query.toString();
    const { body } = await requestJson<{ messages?: unknown; nextBefore?: unknown } | null>(
      this.options.fetch,
      `${this.endpoint}/threads/${encodeURIComponent(threadId)}/messages${qs ? `?${qs}` : ''}`,
      { headers: await this.headers(token, { threadId }) },
      this.options.now,
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
