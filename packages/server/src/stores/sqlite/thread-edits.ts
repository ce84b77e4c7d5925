import type Database from 'libsql';
import type { ThreadEdits } from '../types.js';
import { eraseDeleted } from './erase.js';

/** Runs a statement with the SQLite store's error mapping (`store_unavailable`). */
type Guard = <T>(fn: () => T) => T;

/**
 * Renaming and deleting threads in the SQLite store's file. Built after the thread log and
 * the interrupt ledger, whose tables (`thread_events`, `interrupt_answers`) a removal empties.
 */
export class SqliteThreadEdits implements ThreadEdits {
  private readonly renameStmt;
  private readonly removeTx: (threadId: string, tombstone: boolean) => void;

  constructor(
    private readonly db: Database.Database,
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
    // The tombstone `createThread` refuses (the schema's `deleted_threads`).
    const bury = db.prepare(
      'INSERT OR IGNORE INTO deleted_threads (thread_id, deleted_at) VALUES (?, ?)',
    );
    this.removeTx = db.transaction((threadId: string, tombstone: boolean) => {
      if (tombstone) bury.run(threadId, Date.now());
      for (const statement of statements) statement.run(threadId);
    });
  }

  async rename(threadId: string, title: string, updatedAt: number): Promise<boolean> {
    return this.guard(() => this.renameStmt.run(title, updatedAt, threadId).changes > 0);
  }

  async remove(threadId: string, options?: { tombstone?: boolean }): Promise<void> {
    this.guard(() => {
      this.removeTx(threadId, options?.tombstone !== false);
      eraseDeleted(this.db);
    });
  }
}
