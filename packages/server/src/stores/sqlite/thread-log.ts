import type Database from 'libsql';
import type { StoredEvent, ThreadLogHead, ThreadLogStore } from '../types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS thread_events (
  thread_id    TEXT NOT NULL,
  event_offset INTEGER NOT NULL,
  json         TEXT NOT NULL,
  PRIMARY KEY (thread_id, event_offset)
) WITHOUT ROWID;
`;

/**
 * The SQLite store's thread logs: one table keyed by (thread, offset). The table is added
 * with `IF NOT EXISTS`, so a database from before it needs no migration. Appends run in one
 * transaction: next offset, insert, trim.
 */
export class SqliteThreadLog implements ThreadLogStore {
  private readonly stmt;
  private readonly appendTx: (threadId: string, json: string, keep: number) => number | null;

  /** @param guard the store's: turns SQLite failures into `store_unavailable`. */
  constructor(
    db: Database.Database,
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    db.exec(SCHEMA);
    this.stmt = {
      thread: db.prepare('SELECT 1 FROM threads WHERE thread_id = ?'),
      head: db.prepare(
        `SELECT COALESCE(MIN(event_offset), 0) AS first, COALESCE(MAX(event_offset), 0) AS last
         FROM thread_events WHERE thread_id = ?`,
      ),
      insert: db.prepare(
        'INSERT INTO thread_events (thread_id, event_offset, json) VALUES (?, ?, ?)',
      ),
      trim: db.prepare('DELETE FROM thread_events WHERE thread_id = ? AND event_offset <= ?'),
      read: db.prepare(
        `SELECT event_offset AS offset, json FROM thread_events
         WHERE thread_id = ? AND event_offset > ? ORDER BY event_offset LIMIT ?`,
      ),
    };
    const s = this.stmt;
    this.appendTx = db.transaction((threadId: string, json: string, keep: number) => {
      if (!s.thread.get(threadId)) return null;
      const { last } = s.head.get(threadId) as ThreadLogHead;
      const offset = last + 1;
      s.insert.run(threadId, offset, json);
      s.trim.run(threadId, offset - Math.max(1, keep));
      return offset;
    });
  }

  async append(threadId: string, json: string, keep: number): Promise<number | null> {
    return this.guard(() => this.appendTx(threadId, json, keep));
  }

  async read(threadId: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.guard(() => this.stmt.read.all(threadId, after, limit)) as StoredEvent[];
  }

  async head(threadId: string): Promise<ThreadLogHead> {
    const row = this.guard(() => this.stmt.head.get(threadId)) as ThreadLogHead;
    return { first: row.first, last: row.last };
  }
}
