import type { ResumableError } from '@resumable/protocol';
import { runIdProblem } from '@resumable/protocol';
import type { ChatRecord } from '../conversation/state.js';
import type { RunSession } from '../run/run-session.js';

/** What checking a chat's stored record needs of its `ChatSession`. */
export interface RecordChecker {
  readonly run: Pick<RunSession, 'storage' | 'env'>;
  readonly options: { key: string; onWarning?: ((warning: ResumableError) => void) | undefined };
}

/**
 * A stored chat record made safe to send before any of it goes out: its runIds mended and
 * the rest checked (resume, parent, message id), and both written back to the record
 * (`storedChecked`, a chunk loaded only for a record with an outbox). If that chunk fails
 * to load, the record goes on with its runIds mended in memory only: never lost, and never
 * a runId the server refuses on every retry.
 */
export async function checkedRecord(
  record: ChatRecord | null,
  chat: RecordChecker,
): Promise<ChatRecord | null> {
  if (!record?.outbox.length) return record;
  return import('./stored-outbox.js').then(
    (m) => m.storedChecked(record, chat),
    () => withSendableRunIds(record, () => chat.run.env.randomUUID()),
  );
}

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
