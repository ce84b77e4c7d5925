import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Message, RunSnapshot } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import Database from 'libsql';
import { withLazySnapshot } from '../lazy-snapshot.js';
import type {
  EventStore,
  FileStore,
  InterruptLedger,
  MessagePage,
  NewRun,
  RunEnd,
  RunRecord,
  StoredEvent,
  ThreadEdits,
  ThreadLogStore,
  ThreadRecord,
} from '../types.js';
import { AppendConflictError, runInProgress, runNotFound, threadNotFound } from '../types.js';
import { SqliteFiles } from './files.js';
import { SqliteInterruptLedger } from './interrupts.js';
import { SqliteThreadEdits } from './thread-edits.js';
import { SqliteThreadLog } from './thread-log.js';

/** Which SQLite file a `SqliteStore` keeps everything in, and how durably it writes. */
export interface SqliteStoreOptions {
  /** Database file; created with its directory when missing. `:memory:` for a throwaway. */
  path: string;
  /**
   * SQLite `synchronous` in WAL mode. `NORMAL` survives a process crash (what "stored
   * before sent" needs against a dying server); `FULL` also survives power loss, at a
   * cost per append.
   * @default 'NORMAL'
   */
  synchronous?: 'NORMAL' | 'FULL';
}

const SCHEMA_VERSION = 4;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS threads (
  thread_id  TEXT PRIMARY KEY,
  token      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  next_seq   INTEGER NOT NULL DEFAULT 1,
  first_run_id TEXT,
  title      TEXT,
  updated_at INTEGER
);
CREATE TABLE IF NOT EXISTS runs (
  run_id        TEXT PRIMARY KEY,
  thread_id     TEXT NOT NULL,
  status        TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  ended_at      INTEGER,
  last_offset   INTEGER NOT NULL DEFAULT 0,
  events_pruned INTEGER NOT NULL DEFAULT 0,
  snapshot      TEXT,
  owner         TEXT,
  reply_to      TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_thread ON runs (thread_id, created_at);
CREATE INDEX IF NOT EXISTS runs_running ON runs (status) WHERE status = 'running';
CREATE TABLE IF NOT EXISTS events (
  run_id       TEXT NOT NULL,
  event_offset INTEGER NOT NULL,
  json         TEXT NOT NULL,
  PRIMARY KEY (run_id, event_offset)
) WITHOUT ROWID;
-- Tombstones: ids of deleted threads, which are never threads again (createThread).
CREATE TABLE IF NOT EXISTS deleted_threads (
  thread_id  TEXT PRIMARY KEY,
  deleted_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
  thread_id  TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  run_id     TEXT NOT NULL,
  json       TEXT NOT NULL,
  PRIMARY KEY (thread_id, seq),
  UNIQUE (thread_id, message_id)
);
`;

interface ThreadRow {
  thread_id: string;
  token: string;
  created_at: number;
  first_run_id: string | null;
  title: string | null;
  updated_at: number | null;
}

/** A run's row without its snapshot text, which is read only when it is served. */
interface RunRow {
  run_id: string;
  thread_id: string;
  status: RunRecord['status'];
  created_at: number;
  ended_at: number | null;
  last_offset: number;
  events_pruned: number;
  has_snapshot: number;
  owner: string | null;
  /** NULL: a run from before branches; '': an answer at the root. */
  reply_to: string | null;
}

const RUN_HEAD = `run_id, thread_id, status, created_at, ended_at, last_offset, events_pruned,
  snapshot IS NOT NULL AS has_snapshot, owner, reply_to`;

/**
 * An embedded SQLite file (via `libsql`, a better-sqlite3-compatible driver whose npm
 * package ships prebuilt binaries): one table of events keyed by (run, offset), one of
 * runs, one of threads, one of messages for history. WAL mode, so readers (replays) never
 * block the writer. Events are stored as the JSON text the SSE frames carry.
 *
 * The driver is synchronous; each call is short (an indexed read or one transaction), so
 * it runs on the event loop instead of paying a thread hop per event.
 */
export class SqliteStore implements EventStore {
  /** Always `sqlite`. */
  readonly kind = 'sqlite';
  /** False: one server process owns the file (its running runs are orphans at start-up). */
  readonly shared = false;
  /** The database file the store opened (`SqliteStoreOptions.path`). */
  readonly path: string;
  /** {@inheritDoc EventStore.interrupts} */
  readonly interrupts: InterruptLedger;
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly appendTx: (runId: string, events: readonly StoredEvent[], end?: RunEnd) => void;
  private readonly putMessagesTx: (
    threadId: string,
    runId: string,
    messages: readonly Message[],
  ) => void;
  private closed = false;
  /** The thread event logs (protocol.md, "Thread event stream"). */
  readonly threadLog: ThreadLogStore;
  /** {@inheritDoc EventStore.threadEdits} */
  readonly threadEdits: ThreadEdits;
  /** {@inheritDoc EventStore.files} */
  readonly files: FileStore;

  /**
   * Opens (or creates, with its directory) the database file and brings its schema up to
   * date. Throws an `Error` when the file's schema is newer than this server knows, and
   * the driver's error when the file cannot be opened.
   */
  constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    const db = new Database(options.path);
    this.db = db;
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    db.pragma('busy_timeout = 5000');
    // A deleted row's bytes are overwritten, not left in free pages (see erase.ts).
    db.pragma('secure_delete = ON');
    // libsql ignores `simple: true` and answers `{user_version: n}`: read either shape.
    const pragma = db.pragma('user_version', { simple: true }) as number | { user_version: number };
    const version = typeof pragma === 'number' ? pragma : Number(pragma.user_version);
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `${options.path} has schema version ${version}; this server knows ${SCHEMA_VERSION}`,
      );
    }
    db.exec(SCHEMA);
    // Version 2 adds the run that created a thread (see `ThreadRecord.firstRunId`).
    if (version === 1) db.exec('ALTER TABLE threads ADD COLUMN first_run_id TEXT');
    // Version 3 adds branches (`RunRecord.replyTo`; NULL = a run from before them, whose
    // messages chain in insertion order) and thread titles.
    if (version === 1 || version === 2) {
      db.exec(`ALTER TABLE runs ADD COLUMN reply_to TEXT;
        ALTER TABLE threads ADD COLUMN title TEXT;
        ALTER TABLE threads ADD COLUMN updated_at INTEGER;`);
    }
    // Version 4 adds deleted_threads (created by SCHEMA): an older server would not read
    // the tombstones, and would let a deleted thread be made again.
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    this.interrupts = new SqliteInterruptLedger(db, (fn) => this.guard(fn));

    this.stmt = {
      insertThread: db.prepare(
        `INSERT OR IGNORE INTO threads (thread_id, token, created_at, first_run_id)
         SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM deleted_threads WHERE thread_id = ?1)`,
      ),
      getThread: db.prepare(
        `SELECT thread_id, token, created_at, first_run_id, title, updated_at
         FROM threads WHERE thread_id = ?`,
      ),
      // Only into a thread that exists: no run without its thread (rule 4).
      insertRun: db.prepare(
        `INSERT OR IGNORE INTO runs (run_id, thread_id, status, created_at, owner, reply_to)
         SELECT ?, ?, 'running', ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM threads WHERE thread_id = ?2 AND (?6 IS NULL OR token = ?6))
           AND (?7 = 0 OR (SELECT COUNT(*) FROM runs WHERE thread_id = ?2 AND status = 'running') < ?7)`,
      ),
      runningInThread: db.prepare(
        `SELECT run_id FROM runs WHERE thread_id = ? AND status = 'running' ORDER BY run_id LIMIT 1`,
      ),
      getRun: db.prepare(`SELECT ${RUN_HEAD} FROM runs WHERE run_id = ?`),
      getSnapshot: db.prepare('SELECT snapshot FROM runs WHERE run_id = ?'),
      listRuns: db.prepare(
        `SELECT ${RUN_HEAD} FROM runs WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`,
      ),
      runHead: db.prepare('SELECT status, last_offset FROM runs WHERE run_id = ?'),
      insertEvent: db.prepare('INSERT INTO events (run_id, event_offset, json) VALUES (?, ?, ?)'),
      advance: db.prepare('UPDATE runs SET last_offset = ? WHERE run_id = ?'),
      end: db.prepare(
        'UPDATE runs SET last_offset = ?, status = ?, ended_at = ?, snapshot = ? WHERE run_id = ?',
      ),
      readEvents: db.prepare(
        `SELECT event_offset AS offset, json FROM events
         WHERE run_id = ? AND event_offset > ? ORDER BY event_offset LIMIT ?`,
      ),
      nextSeq: db.prepare(
        'UPDATE threads SET next_seq = next_seq + 1 WHERE thread_id = ? RETURNING next_seq - 1 AS seq',
      ),
      updateMessage: db.prepare(
        'UPDATE messages SET json = ?, run_id = ? WHERE thread_id = ? AND message_id = ?',
      ),
      insertMessage: db.prepare(
        'INSERT INTO messages (thread_id, seq, message_id, run_id, json) VALUES (?, ?, ?, ?, ?)',
      ),
      pageNewest: db.prepare(
        'SELECT seq, json FROM messages WHERE thread_id = ? ORDER BY seq DESC LIMIT ?',
      ),
      pageBefore: db.prepare(
        'SELECT seq, json FROM messages WHERE thread_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      ),
      running: db.prepare(`SELECT ${RUN_HEAD} FROM runs WHERE status = 'running'`),
      expired: db.prepare(
        'SELECT run_id FROM runs WHERE ended_at IS NOT NULL AND ended_at < ? AND events_pruned = 0',
      ),
      deleteEvents: db.prepare('DELETE FROM events WHERE run_id = ?'),
      markPruned: db.prepare('UPDATE runs SET events_pruned = 1 WHERE run_id = ?'),
    };
    const s = this.stmt;
    // Built before the edits, like `interrupts`: a thread's removal empties their tables.
    this.threadLog = new SqliteThreadLog(db, (fn) => this.guard(fn));
    this.threadEdits = new SqliteThreadEdits(db, (fn) => this.guard(fn));
    this.files = new SqliteFiles(db, (fn) => this.guard(fn));
    this.appendTx = db.transaction(
      (runId: string, events: readonly StoredEvent[], end?: RunEnd) => {
        const head = s.runHead.get(runId) as { status: string; last_offset: number } | undefined;
        if (!head) throw runNotFound(runId);
        let next = head.last_offset + 1;
        if (head.status !== 'running') {
          throw new AppendConflictError(runId, next, events[0]?.offset ?? next);
        }
        for (const event of events) {
          if (event.offset !== next) throw new AppendConflictError(runId, next, event.offset);
          s.insertEvent.run(runId, event.offset, event.json);
          next++;
        }
        if (end) {
          s.end.run(next - 1, end.status, end.endedAt, JSON.stringify(end.snapshot), runId);
        } else {
          s.advance.run(next - 1, runId);
        }
      },
    );
    this.putMessagesTx = db.transaction(
      (threadId: string, runId: string, messages: readonly Message[]) => {
        for (const message of messages) {
          const json = JSON.stringify(message);
          const updated = s.updateMessage.run(json, runId, threadId, message.id);
          if (updated.changes > 0) continue;
          const row = s.nextSeq.get(threadId) as { seq: number } | undefined;
          if (!row) throw threadNotFound(threadId);
          s.insertMessage.run(threadId, row.seq, message.id, runId, json);
        }
      },
    );
  }

  /** {@inheritDoc EventStore.createThread} */
  async createThread(thread: ThreadRecord): Promise<boolean> {
    return this.guard(
      () =>
        this.stmt.insertThread.run(
          thread.threadId,
          thread.token,
          thread.createdAt,
          thread.firstRunId ?? null,
        ).changes > 0,
    );
  }

  /** {@inheritDoc EventStore.getThread} */
  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const row = this.guard(() => this.stmt.getThread.get(threadId)) as ThreadRow | undefined;
    if (!row) return null;
    return {
      threadId: row.thread_id,
      token: row.token,
      createdAt: row.created_at,
      ...(row.first_run_id === null ? {} : { firstRunId: row.first_run_id }),
      ...(row.title === null ? {} : { title: row.title }),
      ...(row.updated_at === null ? {} : { updatedAt: row.updated_at }),
    };
  }

  /** {@inheritDoc EventStore.createRun} */
  async createRun(run: NewRun): Promise<{ created: boolean; run: RunRecord }> {
    const { runId, threadId, createdAt, owner, replyTo, threadToken = null } = run;
    const reply = replyTo === undefined ? null : (replyTo ?? '');
    const most = run.maxRunningInThread ?? 0;
    const insert = this.stmt.insertRun;
    const created = this.guard(
      () => insert.run(runId, threadId, createdAt, owner, reply, threadToken, most).changes > 0,
    );
    const record = await this.getRun(runId);
    if (record) return { created, run: record };
    // Refused: the thread is not there (or not the one read), or it has its running runs.
    const running = this.guard(() => this.stmt.runningInThread.get(threadId)) as
      | { run_id: string }
      | undefined;
    const thread = await this.getThread(threadId);
    const current = thread !== null && (threadToken === null || thread.token === threadToken);
    if (current && most > 0 && running) throw runInProgress(threadId, running.run_id);
    throw threadNotFound(threadId);
  }

  /** {@inheritDoc EventStore.getRun} */
  async getRun(runId: string): Promise<RunRecord | null> {
    const row = this.guard(() => this.stmt.getRun.get(runId)) as RunRow | undefined;
    return row ? this.toRecord(row) : null;
  }

  /** {@inheritDoc EventStore.listRuns} */
  async listRuns(threadId: string, limit: number): Promise<RunRecord[]> {
    const rows = this.guard(() => this.stmt.listRuns.all(threadId, limit)) as RunRow[];
    return rows.map((row) => this.toRecord(row));
  }

  /** {@inheritDoc EventStore.append} */
  async append(runId: string, events: readonly StoredEvent[], end?: RunEnd): Promise<void> {
    this.guard(() => this.appendTx(runId, events, end));
  }

  /** {@inheritDoc EventStore.readEvents} */
  async readEvents(runId: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.guard(() => this.stmt.readEvents.all(runId, after, limit)) as StoredEvent[];
  }

  /** {@inheritDoc EventStore.putMessages} */
  async putMessages(threadId: string, runId: string, messages: readonly Message[]) {
    this.guard(() => this.putMessagesTx(threadId, runId, messages));
  }

  /** {@inheritDoc EventStore.listMessages} */
  async listMessages(threadId: string, before: number | null, limit: number): Promise<MessagePage> {
    // One extra row tells whether an older page exists.
    const rows = this.guard(() =>
      before === null
        ? this.stmt.pageNewest.all(threadId, limit + 1)
        : this.stmt.pageBefore.all(threadId, before, limit + 1),
    ) as Array<{ seq: number; json: string }>;
    const more = rows.length > limit;
    const page = rows.slice(0, limit).reverse();
    return {
      messages: page.map((row) => JSON.parse(row.json) as Message),
      nextBefore: more && page.length > 0 ? page[0]!.seq : null,
    };
  }

  /** {@inheritDoc EventStore.findOrphanedRuns} */
  async findOrphanedRuns(): Promise<RunRecord[]> {
    // One process owns the file, so at start-up every run still `running` lost its agent.
    return (this.guard(() => this.stmt.running.all()) as RunRow[]).map((row) => this.toRecord(row));
  }

  /** {@inheritDoc EventStore.pruneEvents} */
  async pruneEvents(endedBefore: number): Promise<number> {
    return this.guard(() => {
      const runs = this.stmt.expired.all(endedBefore) as Array<{ run_id: string }>;
      const prune = this.db.transaction(() => {
        for (const { run_id } of runs) {
          this.stmt.deleteEvents.run(run_id);
          this.stmt.markPruned.run(run_id);
        }
      });
      prune();
      return runs.length;
    });
  }

  /**
   * Runs a statement; a database failure (locked past the busy timeout, disk full, I/O
   * error, closed) becomes `store_unavailable` (HTTP 503), with the SQLite error as cause.
   * A transaction that throws has been rolled back, so nothing is half-written.
   */
  private guard<T>(fn: () => T): T {
    if (this.closed) {
      throw new ResumableError('store_unavailable', `the SQLite store ${this.path} is closed`);
    }
    try {
      return fn();
    } catch (error) {
      if (error instanceof AppendConflictError || error instanceof ResumableError) throw error;
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('SQLITE_')) {
        throw new ResumableError(
          'store_unavailable',
          `SQLite (${this.path}): ${(error as Error).message}`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** The snapshot (stored once, with the terminal event) is read and parsed on first use. */
  private toRecord(row: RunRow): RunRecord {
    const head = headOf(row);
    if (row.has_snapshot !== 1) return { ...head, snapshot: null };
    return withLazySnapshot(head, () => {
      const stored = this.guard(() => this.stmt.getSnapshot.get(row.run_id)) as {
        snapshot: string;
      };
      return JSON.parse(stored.snapshot) as RunSnapshot;
    });
  }

  /** {@inheritDoc EventStore.close} */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}

function headOf(row: RunRow): Omit<RunRecord, 'snapshot'> {
  return {
    runId: row.run_id,
    threadId: row.thread_id,
    status: row.status,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    lastOffset: row.last_offset,
    eventsPruned: row.events_pruned === 1,
    owner: row.owner,
    ...(row.reply_to === null ? {} : { replyTo: row.reply_to === '' ? null : row.reply_to }),
  };
}
