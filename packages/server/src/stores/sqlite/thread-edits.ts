import type Database from 'libsql';
import type { ThreadEdits } from '../types.js';

/** Runs a statement with the SQLite store's error mapping (`store_unavailable`). */
type Guard = <T>(fn: () => T) => T;

/**
 * Renaming and deleting threads in the SQLite store's file. Built after the thread log and
 * the interrupt ledger, whose tables (`thread_events`, `interrupt_answers`) a removal empties.
 */
export class SqliteThreadEdits implements ThreadEdits {
  private readonly renameStmt;
  private readonly removeTx: (threadId: string) => void;

  constructor(
    db: Database.Database,
    private readonly guard: Guard,
  ) {
    this.renameStmt = db.prepare(
      'UPDATE threads SET title = ?, updated_at = ? WHERE thread_id = ?',
    );
    const statements = [
      'DELETE FROM events WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)',
      'DELETE FROM runs WHERE thread_id = ?',
      'DELETE FROM messages WHERE thread_id = ?',
      'DELETE FROM thread_events WHERE thread_id = ?',
      'DELETE FROM interrupt_answers WHERE thread_id = ?',
      'DELETE FROM threads WHERE thread_id = ?',
    ].map((sql) => db.prepare(sql));
    this.removeTx = db.transaction((threadId: string) => {
      for (const statement of statements) statement.run(threadId);
    });
  }

  async rename(threadId: string, title: string, updatedAt: number): Promise<boolean> {
    return this.guard(() => this.renameStmt.run(title, updatedAt, threadId).changes > 0);
  }

  async remove(threadId: string): Promise<void> {
    this.guard(() => this.removeTx(threadId));
  }
}
