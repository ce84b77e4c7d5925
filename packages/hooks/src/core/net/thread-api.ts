import { ResumableError } from '@resumable/protocol';
import { requestJson } from './http.js';
import type { RunApi } from './run-api.js';

/**
 * The thread endpoints the thread list and uploads use (`POST /threads`, `PATCH` /
 * `DELETE /threads/{id}`). Apart from `RunApi` so that first paint does not carry them.
 */

export interface CreatedThread {
  threadId: string;
  token: string;
}

const threadUrl = (api: RunApi, threadId: string) =>
  `${api.endpoint}/threads/${encodeURIComponent(threadId)}`;

/** `POST /threads`: an empty thread and its token (before a first upload); `signal` ends it. */
export async function createThread(api: RunApi, signal?: AbortSignal): Promise<CreatedThread> {
  const { body } = await requestJson<unknown>(
    api.fetch,
    `${api.endpoint}/threads`,
    { method: 'POST', headers: await api.headers(null), body: {}, signal },
    Date.now,
    api.limits,
  );
  const { threadId, token } = (body ?? {}) as Record<string, unknown>;
  if (typeof threadId !== 'string' || threadId === '' || typeof token !== 'string') {
    throw new ResumableError('unexpected_response', 'POST /threads answered without its thread');
  }
  return { threadId, token };
}

/** `PATCH /threads/{id}` `{title}`. */
export async function renameThread(
  api: RunApi,
  threadId: string,
  token: string | null,
  title: string,
): Promise<void> {
  await requestJson(
    api.fetch,
    threadUrl(api, threadId),
    { method: 'PATCH', headers: await api.headers(token, { threadId }), body: { title } },
    Date.now,
    api.limits,
  );
}

/** `DELETE /threads/{id}`: the server removes its runs, events and files. */
export async function deleteThread(
  api: RunApi,
  threadId: string,
  token: string | null,
): Promise<void> {
  await requestJson(
    api.fetch,
    threadUrl(api, threadId),
    { method: 'DELETE', headers: await api.headers(token, { threadId }) },
    Date.now,
    api.limits,
  );
}
