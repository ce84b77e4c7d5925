import type Database from 'libsql';
import type { InterruptAnswer, InterruptLedger } from '../types.js';

/** Its own table, created when missing, so the runs schema and its version stay as they are. */
const TABLE = `
CREATE TABLE IF NOT EXISTS interrupt_answers (
  thread_id    TEXT NOT NULL,
  interrupt_id TEXT NOT NULL,
  run_id       TEXT NOT NULL,
  status       TEXT NOT NULL,
  answered_at  INTEGER NOT NULL,
  payload      TEXT,
  PRIMARY KEY (thread_id, interrupt_id)
) WITHOUT ROWID;
`;

interface Row {
  interrupt_id: string;
  run_id: string;
  status: InterruptAnswer['status'];
  answered_at: number;
  payload: string | null;
}

/**
 * Interrupt answers in the SQLite file: a claim is one `IMMEDIATE` transaction (the write
 * lock is taken before the read), so two processes on one file cannot both win.
 */
export class SqliteInterruptLedger implements InterruptLedger {
  private readonly claimTx: (
    threadId: string,
    runId: string,
    answers: readonly InterruptAnswer[],
  ) => string | null;
  private readonly releaseTx: (threadId: string, runId: string, ids: readonly string[]) => void;
  private readonly getOne: Database.Statement;

  constructor(
    db: Database.Database,
    /** The store's guard: a database failure becomes `store_unavailable`. */
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    db.exec(TABLE);
    this.getOne = db.prepare(
      'SELECT interrupt_id, run_id, status, answered_at, payload FROM interrupt_answers WHERE thread_id = ? AND interrupt_id = ?',
    );
    const insert = db.prepare(
      'INSERT OR IGNORE INTO interrupt_answers (thread_id, interrupt_id, run_id, status, answered_at, payload) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const remove = db.prepare(
      'DELETE FROM interrupt_answers WHERE thread_id = ? AND interrupt_id = ? AND run_id = ?',
    );
    const claim = db.transaction(
      (threadId: string, runId: string, answers: readonly InterruptAnswer[]): string | null => {
        for (const answer of answers) {
          const first = this.getOne.get(threadId, answer.interruptId) as Row | undefined;
          if (first && first.run_id !== runId) return first.run_id;
        }
        for (const a of answers)
          insert.run(threadId, a.interruptId, runId, a.status, a.answeredAt, payloadText(a));
        return null;
      },
    );
    this.claimTx = (threadId, runId, answers) => claim.immediate(threadId, runId, answers);
    this.releaseTx = db.transaction((threadId: string, runId: string, ids: readonly string[]) => {
      for (const id of ids) remove.run(threadId, id, runId);
    });
  }

  async claim(
    threadId: string,
    runId: string,
    answers: readonly InterruptAnswer[],
  ): Promise<string | null> {
    return this.guard(() => this.claimTx(threadId, runId, answers));
  }

  async release(threadId: string, runId: string, interruptIds: readonly string[]): Promise<void> {
    this.guard(() => this.releaseTx(threadId, runId, interruptIds));
  }

  async get(threadId: string, interruptIds: readonly string[]): Promise<InterruptAnswer[]> {
    return this.guard(() =>
      interruptIds.flatMap((id) => {
        const row = this.getOne.get(threadId, id) as Row | undefined;
        if (!row) return [];
        return [
          {
            interruptId: row.interrupt_id,
            runId: row.run_id,
            status: row.status,
            answeredAt: row.answered_at,
            ...(row.payload === null ? {} : { payload: JSON.parse(row.payload) }),
          },
        ];
      }),
    );
  }
}

function payloadText(answer: InterruptAnswer): string | null {
  return answer.payload === undefined ? null : JSON.stringify(answer.payload);
}
