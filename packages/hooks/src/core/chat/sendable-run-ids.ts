import { runIdProblem } from '@resumable/protocol';
import type { ChatRecord } from './chat-record.js';

// Apart from the chat record: the first paint reads the record, and this check (with the
// server's id rule) is the engine's, before anything is sent.

/**
 * Each item under a runId the server takes: one it refuses (`runIdProblem`; a record read
 * keeps a missing one as ''), or one an earlier item already has, is replaced by a new one.
 * A refused runId started no run, and a repeated one would be answered with the earlier
 * item's run (its text lost): the prompt goes out as a new run.
 */
export function withSendableRunIds(record: ChatRecord, newRunId: () => string): ChatRecord {
  const taken = new Set<string>();
  const outbox = record.outbox.map((item) => {
    const ok = runIdProblem(item.runId) === null && !taken.has(item.runId);
    const runId = ok ? item.runId : newRunId();
    taken.add(runId);
    return ok ? item : { ...item, runId };
  });
  return { ...record, outbox };
}
