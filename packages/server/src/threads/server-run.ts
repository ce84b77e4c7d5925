import type { RunAgentInput } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { parseRunRequest, type RunRequest } from '../input.js';
import type { RunManager } from '../run-manager.js';

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
 * The request is validated like a `POST /runs` body (a `ResumableError` `bad_request`
 * before anything is stored), and the thread's limits apply: a thread with a run still
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
  const parsed = parseRunRequest(request);
  const threadId = parsed.threadId;
  if (threadId === undefined) {
    throw new ResumableError('bad_request', 'threadId is required: a server run joins a thread');
  }
  if (!(await manager.store.getThread(threadId))) {
    throw new ResumableError('thread_not_found', `no thread ${threadId}`);
  }
  const input = {
    ...parsed,
    threadId,
    runId: parsed.runId ?? crypto.randomUUID(),
    state: parsed.state ?? {},
  } as RunAgentInput;
  manager.validate(input);
  const bytes = Buffer.byteLength(JSON.stringify(request));
  const { run } = await manager.startRun(input, { address: null, threadExists: true, bytes });
  if (run.threadId !== threadId) {
    throw new ResumableError('bad_request', `runId ${run.runId} belongs to another thread`);
  }
  return { runId: run.runId, threadId };
}
