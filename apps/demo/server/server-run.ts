import { ResumableError } from '@resumable/protocol';
import { errorResponse, type RunManager, startServerRun, tokenPolicy } from '@resumable/server';

/**
 * The demo's "start a run from the server" door, under `/api/demo/`: what a scheduled job
 * or a webhook of a real app would do, behind a button. The run is started by the server
 * (`startServerRun`), with no client attached; every tab and device following the thread
 * sees it through the thread's event stream.
 *
 * `POST /api/demo/threads/{threadId}/server-run` with the thread's token
 * (`Authorization: Bearer …`) and a JSON body `{}` or `{"text": "…"}` (at most 2,000
 * characters) → `201 {runId, threadId}`; errors are the protocol's JSON errors
 * (`409 run_in_progress` while a run is running, `401`/`403` for the token).
 */

export const DEMO_PREFIX = '/api/demo/';
const ROUTE = /^\/api\/demo\/threads\/([^/]+)\/server-run\/?$/;
const DEFAULT_TEXT = 'A scheduled job asks: summarize what this conversation covered so far.';
const MAX_TEXT = 2000;

export function createDemoRoutes(server: { manager: RunManager }) {
  return {
    async fetch(request: Request): Promise<Response> {
      try {
        return await serverRun(server, request);
      } catch (error) {
        return errorResponse(error);
      }
    },
  };
}

async function serverRun(server: { manager: RunManager }, request: Request): Promise<Response> {
  const match = ROUTE.exec(new URL(request.url).pathname);
  if (!match) throw new ResumableError('not_found', 'no such demo route');
  if (request.method !== 'POST') {
    throw Object.assign(new ResumableError('method_not_allowed', 'use POST'), { allow: 'POST' });
  }
  const threadId = decodeURIComponent(match[1]!);
  const thread = await server.manager.store.getThread(threadId);
  if (!thread) throw new ResumableError('thread_not_found', `no thread ${threadId}`);
  if (!(await tokenPolicy(request, { action: 'create', threadId, thread }))) {
    throw new ResumableError('forbidden', 'this token does not grant access to this thread');
  }
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ResumableError('unsupported_media_type', 'the body must be application/json');
  }
  let body: unknown;
  try {
    body = JSON.parse((await request.text()) || '{}');
  } catch {
    throw new ResumableError('bad_request', 'the body is not valid JSON');
  }
  const text = (body as { text?: unknown } | null)?.text ?? DEFAULT_TEXT;
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT) {
    throw new ResumableError('bad_request', `text must be 1-${MAX_TEXT} characters`);
  }
  const started = await startServerRun(server, {
    threadId,
    messages: [{ id: `job-${crypto.randomUUID()}`, role: 'user', content: text }],
  });
  return new Response(JSON.stringify(started), {
    status: 201,
    headers: { 'Content-Type': 'application/json' },
  });
}
