import { ResumableError } from '@resumable/protocol';
import { checkFileReferences } from '../files/references.js';
import type { RunRequest } from '../input.js';
import type { RunManager } from './run-manager.js';
import { acceptRunRequest, requestText } from './run-request.js';

/** A run the server starts itself: `POST /runs`'s body, in a thread that exists. */
export type ServerRunRequest = Pick<RunRequest, 'messages'> &
  Partial<Omit<RunRequest, 'threadId' | 'messages'>> & {
    /** The thread to run in; it must exist (a `404 thread_not_found` otherwise). */
    threadId: string;
  };

/**
 * Starts a run in a thread with no client attached — from a scheduled job, a webhook, a
 * queue consumer. It is a run like any other: stored, announced on the thread's event
 * stream (`resumable.run_started`, so every open tab and device follows it live) and
 * readable at `GET /runs/{runId}/events`.
 *
 * The request is checked exactly as a `POST /runs` body is, before anything is stored: as
 * its JSON, against `limits.maxBodyBytes` (`payload_too_large`), its shape and the
 * uploads its file parts name (`bad_request`), and the thread's limits apply: a thread with a run still
 * running refuses with `409 run_in_progress` (`error.runId` names it). Idempotent by
 * `runId` like `POST /runs`: a repeated `runId` starts nothing and answers the same ids.
 *
 * ```ts
 * const server = await startServer({ store: 'sqlite:.data/runs.db' });
 * const { runId } = await startServerRun(server, {
 *   threadId,
 *   messages: [{ id: crypto.randomUUID(), role: 'user', content: 'Summarize the day' }],
 * });
 * ```
 *
 * @param server anything holding the `RunManager`: `startServer()`'s server,
 *   `createResumableApp()` or `createResumableHandler()`.
 */
export async function startServerRun(
  server: { manager: RunManager },
  request: ServerRunRequest,
): Promise<{ runId: string; threadId: string }> {
  const { manager } = server;
  // The one path a `POST /runs` body takes: its size limit, its shape, the agent's checks.
  const { input, parsed, parentMessageId, bytes } = acceptRunRequest(requestText(request), manager);
  const { threadId } = parsed;
  if (threadId === undefined) {
    throw new ResumableError('bad_request', 'threadId is required: a server run joins a thread');
  }
  if (!(await manager.store.getThread(threadId))) {
    throw new ResumableError('thread_not_found', `no thread ${threadId}`);
  }
  const files = manager.files;
  await checkFileReferences(input.messages, threadId, files?.basePath ?? '', files?.store ?? null);
  const { run } = await manager.startRun(
    input,
    { address: null, threadExists: true, bytes },
    parentMessageId,
  );
  if (run.threadId !== threadId) {
    throw new ResumableError('bad_request', `runId ${run.runId} belongs to another thread`);
  }
  return { runId: run.runId, threadId };
}
