import { THREAD_EVENTS } from '@resumable/protocol';
import { DELETE_DELIVERY_MS, DELETE_REMOTE_END_MS, MAX_DELETED_THREAD_RUNS } from '../defaults.js';
import { sleep } from '../sleep.js';
import type { FileStore } from '../stores/types.js';
import type { RunManager } from './run-manager.js';

/**
 * Deletes a thread and everything on it: its running runs are cancelled and ended first
 * (so no producer writes into a deleted thread), `history_changed {reason:"deleted"}` is
 * announced, then its files, its runs, their events, its history, its thread events and
 * interrupt answers are removed, and its open thread streams close.
 */
export async function deleteThread(
  manager: RunManager,
  files: FileStore,
  threadId: string,
): Promise<void> {
  const release = await manager.threadGuard.hold(threadId);
  try {
    await removeThread(manager, files, threadId);
  } finally {
    release();
  }
}

async function removeThread(
  manager: RunManager,
  files: FileStore,
  threadId: string,
): Promise<void> {
  const { store } = manager;
  const running = (await store.listRuns(threadId, MAX_DELETED_THREAD_RUNS)).filter(
    (r) => r.status === 'running',
  );
  for (const run of running) {
    await manager.cancel(run.runId);
    await manager.waitForRun(run.runId);
  }
  // Runs produced on another instance end when it sees the cancel request: wait, bounded.
  const until = Date.now() + DELETE_REMOTE_END_MS;
  for (const run of running) {
    for (let i = 0; i < 500 && Date.now() < until; i++) {
      if ((await store.getRun(run.runId))?.status !== 'running') break;
      await sleep(10);
    }
  }
  // Announced before anything is removed, and delivered to this instance's open streams
  // before they close: a client following the thread learns why its stream ended.
  const offset = await manager.announce(threadId, THREAD_EVENTS.historyChanged, {
    reason: 'deleted',
  });
  if (offset !== null)
    await manager.threads.streams.delivered(threadId, offset, DELETE_DELIVERY_MS);
  await files.removeThread(threadId);
  await store.threadEdits.remove(threadId);
  manager.threads.deleted(threadId);
}
