import type { Message } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { DEFAULTS } from '../../defaults.js';
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
import { MemoryFiles } from './files.js';
import { MemoryInterruptLedger } from './interrupts.js';
import { MemoryThreadLog } from './thread-log.js';

interface MemoryRun {
  record: RunRecord;
  events: StoredEvent[];
}

interface MemoryThread {
  record: ThreadRecord;
  /** Run ids in creation order. */
  runs: string[];
  /** History in order; `seq` is the page cursor. */
  messages: Array<{ seq: number; id: string; message: Message }>;
  messageIndex: Map<string, number>;
  nextSeq: number;
}

/** How much a `MemoryStore` may hold. */
export interface MemoryStoreOptions {
  /**
   * Bytes of event JSON the store keeps, of runs and of thread event streams. Past it, the
   * events of the runs that ended first are dropped (as retention would: their snapshots
   * stay, a replay of them answers `410`), then the oldest thread events (a thread stream
   * resumed before them answers `410`); when only running runs' events are left, appends
   * fail `store_unavailable` (the run then holds
   * its events and ends `store_unavailable` past `limits.storeOutageMs`; an append that
   * ends a run is always taken).
   * @default 268435456 (256 MiB)
   */
  maxEventBytes?: number;
}

/**
 * Everything in this process's memory: for tests, the demo without a disk, and as the
 * reference implementation of the `EventStore` rules. Nothing survives a restart.
 * Records are copied in and out so callers can never alias the stored state.
 */
export class MemoryStore implements EventStore {
  /** Always `memory`. */
  readonly kind = 'memory';
  /** False: one process holds it; nothing survives a restart. */
  readonly shared = false;
  private readonly ledger = new MemoryInterruptLedger();
  /** {@inheritDoc EventStore.interrupts} */
  readonly interrupts: InterruptLedger = this.ledger;
  private readonly threads = new Map<string, MemoryThread>();
  /** Ids of deleted threads (`ThreadEdits.remove`'s tombstones): never threads again. */
  private readonly deleted = new Set<string>();
  private readonly runs = new Map<string, MemoryRun>();
  /** Ended runs that still have events, in the order they ended (evicted first). */
  private readonly ended = new Set<string>();
  private eventBytes = 0;
  private readonly maxEventBytes: number;
  /** The thread event logs (protocol.md, "Thread event stream"). */
  private readonly logs = new MemoryThreadLog((threadId) => this.threads.has(threadId), {
    reserve: (bytes) => {
      this.makeRoom(bytes, false);
      this.eventBytes += bytes;
    },
    release: (bytes) => {
      this.eventBytes -= bytes;
    },
  });
  /** {@inheritDoc EventStore.threadLog} */
  readonly threadLog: ThreadLogStore = this.logs;
  /** {@inheritDoc EventStore.files} */
  readonly files: FileStore = new MemoryFiles();
  /** {@inheritDoc EventStore.threadEdits} */
  readonly threadEdits: ThreadEdits = {
    rename: async (threadId, title, updatedAt) => {
      const thread = this.threads.get(threadId);
      if (!thread) return false;
      Object.assign(thread.record, { title, updatedAt });
      return true;
    },
    remove: async (threadId, options) => {
      if (options?.tombstone !== false) this.deleted.add(threadId);
      const thread = this.threads.get(threadId);
      if (!thread) return;
      for (const runId of thread.runs) {
        const run = this.runs.get(runId);
        if (run) this.dropEvents(run);
        this.runs.delete(runId);
      }
      this.threads.delete(threadId);
      this.logs.forget(threadId);
      this.ledger.forget(threadId);
    },
  };

  constructor(options: MemoryStoreOptions = {}) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULTS.memory.maxEventBytes;
  }

  /** {@inheritDoc EventStore.createThread} */
  async createThread(thread: ThreadRecord): Promise<boolean> {
    if (this.threads.has(thread.threadId) || this.deleted.has(thread.threadId)) return false;
    this.threads.set(thread.threadId, {
      record: { ...thread },
      runs: [],
      messages: [],
      messageIndex: new Map(),
      nextSeq: 1,
    });
    return true;
  }

  /** {@inheritDoc EventStore.getThread} */
  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const thread = this.threads.get(threadId);
    return thread ? { ...thread.record } : null;
  }

  /** {@inheritDoc EventStore.createRun} */
  async createRun(run: NewRun): Promise<{ created: boolean; run: RunRecord }> {
    const existing = this.runs.get(run.runId);
    if (existing) return { created: false, run: copy(existing.record) };
    const thread = this.threads.get(run.threadId);
    const stale = run.threadToken !== undefined && thread?.record.token !== run.threadToken;
    if (!thread || stale) throw threadNotFound(run.threadId);
    const most = run.maxRunningInThread ?? 0;
    if (most > 0) {
      const running = thread.runs
        .filter((id) => this.runs.get(id)?.record.status === 'running')
        .sort();
      if (running.length >= most) throw runInProgress(run.threadId, running[0]!);
    }
    const { threadToken: _, maxRunningInThread: __, ...fields } = run;
    const record: RunRecord = {
      ...fields,
      status: 'running',
      endedAt: null,
      lastOffset: 0,
      eventsPruned: false,
      snapshot: null,
    };
    this.runs.set(run.runId, { record, events: [] });
    thread.runs.push(run.runId);
    return { created: true, run: copy(record) };
  }

  /** {@inheritDoc EventStore.getRun} */
  async getRun(runId: string): Promise<RunRecord | null> {
    const run = this.runs.get(runId);
    return run ? copy(run.record) : null;
  }

  /** {@inheritDoc EventStore.listRuns} */
  async listRuns(threadId: string, limit: number): Promise<RunRecord[]> {
    const thread = this.threads.get(threadId);
    if (!thread) return [];
    const out: RunRecord[] = [];
    for (let i = thread.runs.length - 1; i >= 0 && out.length < limit; i--) {
      const run = this.runs.get(thread.runs[i]!);
      if (run) out.push(copy(run.record));
    }
    return out;
  }

  /** {@inheritDoc EventStore.append} */
  async append(runId: string, events: readonly StoredEvent[], end?: RunEnd): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) throw runNotFound(runId);
    const first = events[0]?.offset ?? run.record.lastOffset + 1;
    if (run.record.status !== 'running' || first !== run.record.lastOffset + 1) {
      throw new AppendConflictError(runId, run.record.lastOffset + 1, first);
    }
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.offset !== first + i) {
        throw new AppendConflictError(runId, first + i, events[i]!.offset);
      }
    }
    const bytes = events.reduce((sum, e) => sum + e.json.length, 0);
    this.makeRoom(bytes, end !== undefined);
    for (const event of events) run.events.push({ offset: event.offset, json: event.json });
    this.eventBytes += bytes;
    run.record.lastOffset = first + events.length - 1;
    if (end) {
      this.ended.add(runId);
      run.record.status = end.status;
      run.record.endedAt = end.endedAt;
      run.record.snapshot = structuredClone(end.snapshot);
    }
  }

  /** {@inheritDoc EventStore.readEvents} */
  async readEvents(runId: string, after: number, limit: number): Promise<StoredEvent[]> {
    const run = this.runs.get(runId);
    if (!run || run.events.length === 0) return [];
    // Offsets are 1..N in array order, so the index of offset k is k - first.
    const first = run.events[0]!.offset;
    const start = Math.max(0, after + 1 - first);
    return run.events.slice(start, start + limit);
  }

  /** {@inheritDoc EventStore.putMessages} */
  async putMessages(threadId: string, _runId: string, messages: readonly Message[]) {
    const thread = this.threads.get(threadId);
    if (!thread) throw threadNotFound(threadId);
    for (const message of messages) {
      const at = thread.messageIndex.get(message.id);
      if (at !== undefined) {
        thread.messages[at]!.message = structuredClone(message);
      } else {
        thread.messageIndex.set(message.id, thread.messages.length);
        thread.messages.push({
          seq: thread.nextSeq++,
          id: message.id,
          message: structuredClone(message),
        });
      }
    }
  }

  /** {@inheritDoc EventStore.listMessages} */
  async listMessages(threadId: string, before: number | null, limit: number): Promise<MessagePage> {
    const all = this.threads.get(threadId)?.messages ?? [];
    let end = all.length;
    if (before !== null) {
      end = 0;
      while (end < all.length && all[end]!.seq < before) end++;
    }
    const start = Math.max(0, end - limit);
    const page = all.slice(start, end);
    return {
      messages: page.map((m) => structuredClone(m.message)),
      nextBefore: start > 0 ? page[0]!.seq : null,
    };
  }

  /** {@inheritDoc EventStore.findOrphanedRuns} */
  async findOrphanedRuns(): Promise<RunRecord[]> {
    // A memory store dies with its process, so at start-up there is never an orphan.
    return [];
  }

  /** {@inheritDoc EventStore.pruneEvents} */
  async pruneEvents(endedBefore: number): Promise<number> {
    let pruned = 0;
    for (const run of this.runs.values()) {
      const { endedAt } = run.record;
      if (endedAt !== null && endedAt < endedBefore && !run.record.eventsPruned) {
        this.dropEvents(run);
        pruned++;
      }
    }
    return pruned;
  }

  /** {@inheritDoc EventStore.close} */
  async close(): Promise<void> {
    this.threads.clear();
    this.runs.clear();
    this.ended.clear();
    this.logs.clear();
    this.eventBytes = 0;
  }

  /**
   * Drops the events of the runs that ended first, then the oldest thread events, until
   * `bytes` more fit. A run's last append (with its end) is always taken, so every run can
   * end even in a full store; an append larger than the whole cap evicts nothing.
   */
  private makeRoom(bytes: number, ending: boolean): void {
    const fits = () => this.eventBytes + bytes <= this.maxEventBytes;
    if (ending || bytes <= this.maxEventBytes) {
      for (const runId of this.ended) {
        if (fits()) return;
        const run = this.runs.get(runId);
        if (run) this.dropEvents(run);
      }
      while (!fits() && this.logs.evictOldest()) {}
    }
    if (!ending && !fits()) {
      throw new ResumableError(
        'store_unavailable',
        `the memory store is full: ${this.eventBytes} of ${this.maxEventBytes} bytes of events`,
      );
    }
  }

  private dropEvents(run: MemoryRun): void {
    for (const event of run.events) this.eventBytes -= event.json.length;
    run.events = [];
    run.record.eventsPruned = true;
    this.ended.delete(run.record.runId);
  }
}

/** A copy callers cannot alias; a finished run's snapshot is copied only when read. */
function copy(record: RunRecord): RunRecord {
  const { snapshot, ...head } = record;
  if (!snapshot) return { ...head, snapshot: null };
  return withLazySnapshot(head, () => structuredClone(snapshot));
}
