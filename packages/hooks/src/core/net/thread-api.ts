import { ResumableError } from '@resumable/protocol';
import { type EndpointOptions, endpointApi } from './endpoint.js';
import { requestJson } from './http.js';
import type { RunApi } from './run-api.js';

/**
 * The thread endpoints the thread list and uploads use (`POST /threads`, `PATCH` /
 * `DELETE /threads/{id}`). Apart from `RunApi` so that first paint does not carry them.
 */

/** A thread `POST /threads` made, empty: its id and its capability. */
export interface CreatedThread {
  /** The new thread's id. */
  threadId: string;
  /** The thread's token (`Authorization: Bearer`), for every later request on it. */
  token: string;
}

const threadUrl = (api: RunApi, threadId: string) =>
  `${api.endpoint}/threads/${encodeURIComponent(threadId)}`;

/**
 * `POST /threads`: an empty thread and its token (before a first upload); `signal` ends it.
 *
 * @example
 * ```ts
 * const { threadId, token } = await createThread({ endpoint: '/api' });
 * ```
 */
export function createThread(
  server: EndpointOptions,
  signal?: AbortSignal,
): Promise<CreatedThread> {
  return postThread(endpointApi(server), signal);
}

/** `createThread` with a session's own calls (its fetch, headers and timeouts). */
export async function postThread(api: RunApi, signal?: AbortSignal): Promise<CreatedThread> {
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

/** `PATCH /threads/{id}` `{title}`, with the thread's token. */
export async function renameThread(
  server: EndpointOptions,
  threadId: string,
  token: string | null,
  title: string,
): Promise<void> {
  const api = endpointApi(server);
  await requestJson(
    api.fetch,
    threadUrl(api, threadId),
    { method: 'PATCH', headers: await api.headers(token, { threadId }), body: { title } },
    Date.now,
    api.limits,
  );
}

/** `DELETE /threads/{id}`, with the thread's token: the server removes its runs, events and files. */
export async function deleteThread(
  server: EndpointOptions,
  threadId: string,
  token: string | null,
): Promise<void> {
  const api = endpointApi(server);
  await requestJson(
    api.fetch,
    threadUrl(api, threadId),
    { method: 'DELETE', headers: await api.headers(token, { threadId }) },
    Date.now,
    api.limits,
  );
}
