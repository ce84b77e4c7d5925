import type Database from 'libsql';
import { SQLITE_FILE_PIECE_BYTES } from '../../defaults.js';
import type { FileStore, FileUpload, StoredFile } from '../types.js';
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
-- A file's bytes in the pieces they arrived in (files.bytes is then empty; it holds the
-- bytes of files stored before uploads were written as they come). Pieces without a
-- files row are an upload in progress, or one a crash cut short (removed at open).
CREATE TABLE IF NOT EXISTS file_pieces (
  thread_id TEXT NOT NULL,
  file_id   TEXT NOT NULL,
  seq       INTEGER NOT NULL,
  bytes     BLOB NOT NULL,
  PRIMARY KEY (thread_id, file_id, seq)
);
`;

/** `files.bytes` of a file whose bytes are its pieces. */
const EMPTY = new Uint8Array(0);

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
  private readonly commitTx: (file: StoredFile, max: number) => boolean;
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
      addPiece: db.prepare(
        'INSERT INTO file_pieces (thread_id, file_id, seq, bytes) VALUES (?, ?, ?, ?)',
      ),
      pieces: db.prepare(
        'SELECT bytes FROM file_pieces WHERE thread_id = ? AND file_id = ? ORDER BY seq',
      ),
      dropPieces: db.prepare('DELETE FROM file_pieces WHERE thread_id = ? AND file_id = ?'),
      dropThreadPieces: db.prepare('DELETE FROM file_pieces WHERE thread_id = ?'),
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
    // Pieces of uploads a crash cut short: no upload is in progress at open.
    db.exec(`DELETE FROM file_pieces WHERE NOT EXISTS (SELECT 1 FROM files
      WHERE files.thread_id = file_pieces.thread_id AND files.file_id = file_pieces.file_id)`);
    this.removeOneTx = db.transaction((threadId: string, fileId: string) => {
      this.stmt.removeOne.run(threadId, fileId);
      this.stmt.dropPieces.run(threadId, fileId);
      this.stmt.unpend.run(threadId, fileId);
    });
    this.sweepTx = db.transaction((createdBefore: number, limit: number) => {
      const rows = this.stmt.stale.all(createdBefore, limit) as Array<{
        thread_id: string;
        file_id: string;
      }>;
      for (const row of rows) {
        this.stmt.removeOne.run(row.thread_id, row.file_id);
        this.stmt.dropPieces.run(row.thread_id, row.file_id);
        this.stmt.unpend.run(row.thread_id, row.file_id);
      }
      return rows.length;
    });
    this.removeTx = db.transaction((threadId: string) => {
      this.stmt.remove.run(threadId);
      this.stmt.dropThreadPieces.run(threadId);
      this.stmt.unpendThread.run(threadId);
    });
    // The total is checked and the file made one of the thread's in one transaction: two
    // uploads racing on one thread cannot both pass the limit. Its bytes are the pieces.
    this.commitTx = db.transaction((file: StoredFile, max: number) => {
      const { used } = this.stmt.used.get(file.threadId) as { used: number };
      if (used + file.size > max) {
        this.stmt.dropPieces.run(file.threadId, file.fileId);
        return false;
      }
      this.stmt.insert.run(
        file.fileId,
        file.threadId,
        file.name,
        file.mimeType,
        file.size,
        file.createdAt,
        EMPTY,
      );
      this.stmt.pend.run(file.threadId, file.fileId, file.createdAt);
      return true;
    });
  }

  upload(threadId: string, fileId: string): FileUpload {
    let buffered: Uint8Array[] = [];
    let bufferedBytes = 0;
    let size = 0;
    let seq = 0;
    // Pieces of SQLITE_FILE_PIECE_BYTES: a row per network read would be a row per few KiB.
    const flush = () => {
      if (bufferedBytes === 0) return;
      const piece = Buffer.concat(buffered, bufferedBytes);
      buffered = [];
      bufferedBytes = 0;
      this.guard(() => this.stmt.addPiece.run(threadId, fileId, seq++, piece));
    };
    return {
      write: async (bytes) => {
        buffered.push(bytes);
        bufferedBytes += bytes.byteLength;
        size += bytes.byteLength;
        if (bufferedBytes >= SQLITE_FILE_PIECE_BYTES) flush();
      },
      commit: async (file, maxThreadBytes) => {
        if (file.threadId !== threadId || file.fileId !== fileId || file.size !== size) {
          throw new RangeError(`upload ${threadId}/${fileId}: ${size} bytes written`);
        }
        flush();
        return this.guard(() => this.commitTx(file, maxThreadBytes));
      },
      abort: async () => {
        buffered = [];
        bufferedBytes = 0;
        this.guard(() => this.stmt.dropPieces.run(threadId, fileId));
      },
    };
  }

  async head(threadId: string, fileId: string): Promise<StoredFile | null> {
    const row = this.guard(() => this.stmt.head.get(threadId, fileId)) as FileRow | undefined;
    return row ? fileOf(row) : null;
  }

  async get(threadId: string, fileId: string) {
    const file = await this.head(threadId, fileId);
    if (!file) return null;
    // libsql gives a BLOB as an ArrayBuffer.
    const pieces = this.guard(() => this.stmt.pieces.all(threadId, fileId)) as Array<{
      bytes: ArrayBuffer;
    }>;
    if (pieces.length > 0) {
      const bytes = Buffer.concat(pieces.map((piece) => new Uint8Array(piece.bytes)));
      return { file, bytes: new Uint8Array(bytes) };
    }
    // A file stored before uploads were written in pieces (or an empty one).
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
