import type Database from 'libsql';
import type { FileStore, StoredFile } from '../types.js';
import { eraseDeleted } from './erase.js';

const FILES_SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  thread_id  TEXT NOT NULL,
  file_id    TEXT NOT NULL,
  name       TEXT NOT NULL,
  mime_type  TEXT NOT NULL,
  size       INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  bytes      BLOB NOT NULL,
  PRIMARY KEY (thread_id, file_id)
) WITHOUT ROWID;
-- Uploads no prompt has named yet: swept once older than the files' grace.
CREATE TABLE IF NOT EXISTS pending_files (
  thread_id  TEXT NOT NULL,
  file_id    TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, file_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pending_files_by_age ON pending_files (created_at);
`;

interface FileRow {
  file_id: string;
  thread_id: string;
  name: string;
  mime_type: string;
  size: number;
  created_at: number;
}

const HEAD = 'file_id, thread_id, name, mime_type, size, created_at';

/** Uploaded files as BLOBs in the SQLite store's file (a table of their own). */
export class SqliteFiles implements FileStore {
  private readonly stmt;
  private readonly putTx: (file: StoredFile, bytes: Uint8Array, max: number) => boolean;
  private readonly sweepTx: (createdBefore: number, limit: number) => number;
  private readonly removeTx: (threadId: string) => void;
  private readonly removeOneTx: (threadId: string, fileId: string) => void;

  constructor(
    private readonly db: Database.Database,
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    db.exec(FILES_SCHEMA);
    this.stmt = {
      used: db.prepare('SELECT COALESCE(SUM(size), 0) AS used FROM files WHERE thread_id = ?'),
      insert: db.prepare(`INSERT INTO files (${HEAD}, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      head: db.prepare(`SELECT ${HEAD} FROM files WHERE thread_id = ? AND file_id = ?`),
      bytes: db.prepare('SELECT bytes FROM files WHERE thread_id = ? AND file_id = ?'),
      remove: db.prepare('DELETE FROM files WHERE thread_id = ?'),
      pend: db.prepare(
        'INSERT INTO pending_files (thread_id, file_id, created_at) VALUES (?, ?, ?)',
      ),
      unpend: db.prepare('DELETE FROM pending_files WHERE thread_id = ? AND file_id = ?'),
      unpendThread: db.prepare('DELETE FROM pending_files WHERE thread_id = ?'),
      stale: db.prepare(
        'SELECT thread_id, file_id FROM pending_files WHERE created_at < ? ORDER BY created_at LIMIT ?',
      ),
      removeOne: db.prepare('DELETE FROM files WHERE thread_id = ? AND file_id = ?'),
    };
    this.removeOneTx = db.transaction((threadId: string, fileId: string) => {
      this.stmt.removeOne.run(threadId, fileId);
      this.stmt.unpend.run(threadId, fileId);
    });
    this.sweepTx = db.transaction((createdBefore: number, limit: number) => {
      const rows = this.stmt.stale.all(createdBefore, limit) as Array<{
        thread_id: string;
        file_id: string;
      }>;
      for (const row of rows) {
        this.stmt.removeOne.run(row.thread_id, row.file_id);
        this.stmt.unpend.run(row.thread_id, row.file_id);
      }
      return rows.length;
    });
    this.removeTx = db.transaction((threadId: string) => {
      this.stmt.remove.run(threadId);
      this.stmt.unpendThread.run(threadId);
    });
    // The total is checked and the file stored in one transaction: two uploads racing on
    // one thread cannot both pass the limit.
    this.putTx = db.transaction((file: StoredFile, bytes: Uint8Array, max: number) => {
      const { used } = this.stmt.used.get(file.threadId) as { used: number };
      if (used + file.size > max) return false;
      this.stmt.insert.run(
        file.fileId,
        file.threadId,
        file.name,
        file.mimeType,
        file.size,
        file.createdAt,
        Buffer.from(bytes),
      );
      this.stmt.pend.run(file.threadId, file.fileId, file.createdAt);
      return true;
    });
  }

  async put(file: StoredFile, bytes: Uint8Array, maxThreadBytes: number): Promise<boolean> {
    return this.guard(() => this.putTx(file, bytes, maxThreadBytes));
  }

  async head(threadId: string, fileId: string): Promise<StoredFile | null> {
    const row = this.guard(() => this.stmt.head.get(threadId, fileId)) as FileRow | undefined;
    return row ? fileOf(row) : null;
  }

  async get(threadId: string, fileId: string) {
    const file = await this.head(threadId, fileId);
    if (!file) return null;
    const row = this.guard(() => this.stmt.bytes.get(threadId, fileId)) as
      | { bytes: Uint8Array }
      | undefined;
    return row ? { file, bytes: new Uint8Array(row.bytes) } : null;
  }

  async removeThread(threadId: string): Promise<void> {
    this.guard(() => {
      this.removeTx(threadId);
      eraseDeleted(this.db);
    });
  }

  async remove(threadId: string, fileId: string): Promise<void> {
    this.guard(() => {
      this.removeOneTx(threadId, fileId);
      eraseDeleted(this.db);
    });
  }

  async markReferenced(threadId: string, fileId: string): Promise<void> {
    this.guard(() => this.stmt.unpend.run(threadId, fileId));
  }

  async sweepUnreferenced(createdBefore: number, limit: number): Promise<number> {
    return this.guard(() => {
      const swept = this.sweepTx(createdBefore, limit);
      if (swept > 0) eraseDeleted(this.db);
      return swept;
    });
  }
}

function fileOf(row: FileRow): StoredFile {
  return {
    fileId: row.file_id,
    threadId: row.thread_id,
    name: row.name,
    mimeType: row.mime_type,
    size: row.size,
    createdAt: row.created_at,
  };
}
