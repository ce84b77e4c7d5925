import { CLAIM_GRACE_MS } from '../defaults.js';
import type { EventStore, InterruptAnswer } from '../stores/types.js';

/**
 * Splits recorded answers into those that stand and those abandoned: older than
 * `CLAIM_GRACE_MS` and by a run the store does not have. One `getRun` per answering run
 * that is old enough to be in doubt (usually none).
 */
export async function standingAnswers(
  store: EventStore,
  answers: readonly InterruptAnswer[],
  now = Date.now(),
): Promise<{ standing: InterruptAnswer[]; abandoned: InterruptAnswer[] }> {
  const doubtful = new Set(
    answers.filter((a) => a.answeredAt < now - CLAIM_GRACE_MS).map((a) => a.runId),
  );
  const missing = new Set<string>();
  for (const runId of doubtful) {
    if (!(await store.getRun(runId))) missing.add(runId);
  }
  const abandoned = answers.filter((a) => missing.has(a.runId));
  const standing = answers.filter((a) => !missing.has(a.runId));
  return { standing, abandoned };
}

/** Removes abandoned answers from the ledger, so a new claim on them can win. */
export async function releaseAbandoned(
  store: EventStore,
  threadId: string,
  abandoned: readonly InterruptAnswer[],
): Promise<void> {
  const byRun = new Map<string, string[]>();
  for (const answer of abandoned) {
    byRun.set(answer.runId, [...(byRun.get(answer.runId) ?? []), answer.interruptId]);
  }
  for (const [runId, keys] of byRun) await store.interrupts.release(threadId, runId, keys);
}
