import type { Envelope, RunAgentInput, RunSnapshot, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  createRunState,
  isTerminalStatus,
  ResumableError,
  stateFromSnapshot,
} from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { StartedRun } from './api.js';
import { RunApi } from './api.js';
import { CancelSender } from './cancel.js';
import type { ResumableEnvironment } from './env.js';
import { createEnvironment } from './env.js';
import { KeepAlive } from './keepalive.js';
import type { SessionEvent, SessionPhase } from './machine.js';
import { connectionPhaseOf, isStopped, transition } from './machine.js';
import type { RunSessionOptions } from './options.js';
import type { Ids, LoopHost } from './reconnect.js';
import { ReconnectLoop, toResumable } from './reconnect.js';
import type { RunRecord } from './record.js';
import { parseRecord, recordOf, runRecordKey } from './record.js';
import type { RecordStorage } from './storage.js';
import { createMemoryStorage, defaultStorage, withFallback } from './storage.js';
import type { RunSessionState } from './store.js';
import { createSessionStore, liveConnection, MAX_SESSION_WARNINGS, runErrorOf } from './store.js';
import type { ConnectionInfo } from './types.js';
import { RecordWriter } from './writer.js';

export type { RunSessionOptions } from './options.js';
export { toResumable } from './reconnect.js';

export interface StartRunInput extends Partial<Omit<RunAgentInput, 'runId'>> {
  /** Client-chosen run id, so a retried POST never starts two runs. @default crypto.randomUUID() */
  runId?: string;
  /** The thread's token when continuing an existing thread. */
  token?: string | null;
}

export interface AttachInput {
  runId: string;
  threadId: string;
  token: string | null;
}

/**
 * One run's client side: the written state machine of `machine.ts` (one `transition`
 * over named phases), the fold, the persisted record and a zustand store. The reconnect
 * loop (`reconnect.ts`), cancel-with-retry (`cancel.ts`) and keep-alive (`keepalive.ts`)
 * are modules of their own; this class holds the commands, the record and the store.
 * Framework-free; React only subscribes to `store`.
 */
export class RunSession {
  readonly key: string;
  readonly store: StoreApi<RunSessionState>;
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly storage: RecordStorage;
  private readonly options: RunSessionOptions;
  private readonly writer: RecordWriter;
  private readonly keepAlive: KeepAlive;
  private readonly loop: ReconnectLoop;
  private readonly canceller: CancelSender;

  private phase: SessionPhase = 'idle';
  private ids: Ids | null = null;
  private run: RunState = createRunState();
  /** `lastOffset` of the server snapshot `run` was built on (0: from the log's start). */
  private base = 0;
  private hydration: Promise<void> | null = null;
  private unsubscribers: (() => void)[] = [];
  private disposed = false;
  /** Set after a drop or a reload: the next open counts as a resume. */
  private resuming = false;
  /** Bytes read on event streams (bench). */
  bytesReceived = 0;

  constructor(options: RunSessionOptions) {
    this.options = options;
    this.key = options.key;
    this.env = createEnvironment(options.env);
    const warn = (error: ResumableError) => this.warn(error);
    const given = options.storage ?? defaultStorage(warn);
    // Any storage but memory can fail or hang (Safari's IndexedDB): guard it.
    this.storage =
      given.kind === 'memory'
        ? given
        : withFallback(given, createMemoryStorage(), warn, options.storageTimeoutMs);
    this.api = new RunApi({
      endpoint: options.endpoint,
      fetch: this.env.fetch,
      now: this.env.now,
      headers: options.headers,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    this.store = createSessionStore(options.key, this.storage.kind);
    this.writer = new RecordWriter({
      storage: this.storage,
      storageKey: runRecordKey(options.key),
      produce: () => this.produceRecord(),
      minIntervalMs: 1000 / (options.maxWritesPerSecond ?? 4),
      now: this.env.now,
      setTimeout: this.env.setTimeout,
      clearTimeout: this.env.clearTimeout,
      onStored: () => this.notePersistence(),
      onError: (error) =>
        this.warn(
          new ResumableError('storage_unavailable', 'could not persist the run record', {
            cause: error,
          }),
        ),
    });
    this.keepAlive = new KeepAlive({
      activate: () => this.activate(),
      deactivate: () => this.deactivate(),
      setTimeout: this.env.setTimeout,
      clearTimeout: this.env.clearTimeout,
    });
    this.loop = new ReconnectLoop(this.loopHost());
    this.canceller = new CancelSender({
      env: this.env,
      api: this.api,
      loop: this.loop,
      options,
      ids: () => this.ids,
      setConnection: (patch) => this.setConnection(patch),
      warn,
      forget: (error) => this.forget(error),
      taken: () => {
        this.to('cancelTaken');
        // The server's log now ends with RUN_FINISHED(cancelled): read it to the end so
        // the text matches the server's exactly.
        this.ensureLoop();
      },
    });
  }

  getState(): RunSessionState {
    return this.store.getState();
  }

  /** Record writes issued (the bench divides by time). */
  get recordWrites(): number {
    return this.writer.writes;
  }

  // ── lifecycle ──────────────────────────────────────────────────────────────────────────

  /** Starts work on the first holder; returns the matching `release`. */
  retain(): () => void {
    return this.keepAlive.retain();
  }

  private activate(): void {
    this.unsubscribers.push(
      this.env.online.subscribe((online) => this.onOnlineChange(online)),
      this.env.visible.subscribe((visible) => {
        if (visible) this.loop.wakeNow();
      }),
      this.env.onPageHide(() => {
        void this.writer.flush();
      }),
    );
    void this.hydrate().then(() => this.ensureLoop());
  }

  private deactivate(): void {
    for (const off of this.unsubscribers.splice(0)) off();
    this.loop.stop();
    void this.writer.flush();
    if (this.ids) this.to('park', { nextRetryAt: null });
  }

  /** Ends everything for good (tests, HMR, a registry being torn down). Always settles. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.keepAlive.reset();
    this.deactivate();
    await this.writer.idle();
  }

  /** Reads the persisted record once and shows its snapshot before any network. */
  hydrate(): Promise<void> {
    this.hydration ??= this.readRecord();
    return this.hydration;
  }

  private async readRecord(): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.storage.get(runRecordKey(this.key));
    } catch (cause) {
      this.warn(
        new ResumableError('storage_unavailable', 'could not read the run record', { cause }),
      );
    }
    // A run started before the read finished wins over an older persisted one.
    if (this.ids === null) {
      const record = parseRecord(raw, this.key);
      let problem = record instanceof ResumableError ? record : null;
      if (record !== null && !(record instanceof ResumableError)) {
        try {
          this.restore(record);
        } catch (cause) {
          // Passed the shape check but not the fold: as corrupt as any other bad record.
          this.ids = null;
          this.run = createRunState();
          problem = new ResumableError(
            'corrupt_record',
            `persisted record "${this.key}" discarded: ${String(cause)}`,
          );
        }
      }
      if (problem !== null) {
        this.warn(problem);
        await this.storage.delete(runRecordKey(this.key)).catch(() => {});
      }
    }
    this.store.setState({ hydrated: true });
    this.notePersistence();
  }

  private restore(record: RunRecord): void {
    this.ids = { runId: record.runId, threadId: record.threadId, token: record.token };
    this.run = stateFromSnapshot({ ...record.snapshot, lastOffset: record.offset });
    this.base = record.base ?? 0;
    this.resuming = record.offset > 0;
    this.phase = isTerminalStatus(this.run.status) ? 'ended' : record.stopped ? 'stopping' : 'idle';
    this.publish(this.run, {}, { stopped: record.stopped === true });
  }

  // ── commands ───────────────────────────────────────────────────────────────────────────

  /**
   * Starts a run: `POST /runs` with a client-chosen `runId`, persists `{runId, threadId,
   * token}` before any event is applied, then follows the stream. Settles within the
   * request timeout (a hung POST is a `timeout` error).
   */
  async start(input: StartRunInput = {}): Promise<StartedRun> {
    await this.hydrate();
    const { token = this.ids?.threadId === input.threadId ? this.ids?.token : null, ...rest } =
      input;
    const runId = input.runId ?? this.env.randomUUID();
    const body: Partial<RunAgentInput> = { messages: [], ...rest, runId };
    let started: StartedRun;
    try {
      started = await this.api.startRun(body, token ?? null);
    } catch (error) {
      const typed = toResumable(error);
      this.store.setState({ error: typed });
      this.setConnection({ lastError: typed });
      throw typed;
    }
    this.loop.stop();
    this.adopt(started, createRunState({ runId: started.runId, threadId: started.threadId }));
    await this.writer.flush();
    this.ensureLoop();
    return started;
  }

  /**
   * Joins a run already going (a second tab or device): its snapshot first, then the live
   * events after it.
   */
  async attach(input: AttachInput): Promise<void> {
    await this.hydrate();
    if (this.ids?.runId === input.runId) {
      this.ensureLoop();
      return;
    }
    this.loop.stop();
    this.adopt(input, createRunState({ runId: input.runId, threadId: input.threadId }));
    try {
      const snapshot = await this.api.getRun(input.runId, input.token);
      if (this.ids?.runId === input.runId) await this.applySnapshot(snapshot);
    } catch (error) {
      // The event log from 0 gives the same state, only slower.
      this.warn(toResumable(error));
    }
    await this.writer.flush();
    this.ensureLoop();
  }

  /**
   * Stops the run on the server (not a mere disconnect); never auto-revived. Resolves once
   * the server took the cancel, or when it cannot be sent now (offline: it goes out on
   * `online`; refused with 401/403/400: on `retry()`). Transient failures are retried
   * through the retry policy.
   */
  async cancel(): Promise<void> {
    if (!this.ids || isTerminalStatus(this.run.status)) return;
    this.loop.stop();
    this.store.setState({ stopped: true });
    this.to('stop', { nextRetryAt: null });
    this.writer.schedule();
    await this.writer.flush();
    await this.canceller.send();
  }

  /** Reconnects now (after an error, or to skip a wait), or re-sends an owed cancel. */
  retry(): void {
    if (!this.ids || this.getState().error?.code === 'run_not_found') return;
    this.store.setState({ error: runErrorOf(this.run) });
    this.setConnection({ attempt: 0 });
    if (this.phase === 'stopping') {
      void this.canceller.send();
      return;
    }
    if (this.loop.active) this.loop.wakeNow();
    else this.ensureLoop();
  }

  /** Forgets the run (a new conversation): stops following it and deletes the record. */
  async clear(): Promise<void> {
    this.loop.stop();
    this.writer.cancel();
    this.ids = null;
    this.run = createRunState();
    this.base = 0;
    this.to('clear', { attempt: 0, nextRetryAt: null, lastError: null, caughtUp: 0 });
    this.publish(this.run, {}, { runId: null, threadId: null, error: null, stopped: false });
    await this.writer.idle();
    await this.storage.delete(runRecordKey(this.key)).catch(() => {});
  }

  /** Writes the record now (tests; the session already does it on pagehide and at the end). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  // ── the machine ────────────────────────────────────────────────────────────────────────

  /** The one place the phase moves; the connection status is derived from it. */
  private to(event: SessionEvent, patch: Partial<ConnectionInfo> = {}): void {
    this.phase = transition(this.phase, event);
    this.setConnection({
      ...patch,
      phase: connectionPhaseOf(this.phase, this.run.status, this.isResuming(patch)),
    });
  }

  private ensureLoop(): void {
    if (this.disposed || !this.keepAlive.held || this.loop.active || !this.ids) return;
    if (isTerminalStatus(this.run.status)) return;
    if (this.phase === 'stopping') {
      void this.canceller.send();
      return;
    }
    this.loop.start();
  }

  private loopHost(): LoopHost {
    const session = this;
    return {
      env: this.env,
      api: this.api,
      options: this.options,
      phase: () => this.phase,
      to: (event, patch) => this.to(event, patch),
      ids: () => this.ids,
      run: () => this.run,
      connection: () => this.getState().connection,
      setConnection: (patch) => this.setConnection(patch),
      applyBatch: (envelopes, first) => this.applyBatch(envelopes, first),
      applySnapshot: (snapshot) => this.applySnapshot(snapshot),
      forget: (error) => this.forget(error),
      fail: (error) => this.fail(error),
      settle: () => this.settle(),
      warn: (error) => this.warn(error),
      get resuming() {
        return session.resuming;
      },
      set resuming(value: boolean) {
        session.resuming = value;
      },
      get bytesReceived() {
        return session.bytesReceived;
      },
      set bytesReceived(value: number) {
        session.bytesReceived = value;
      },
    };
  }

  private applyBatch(envelopes: Envelope[], first: boolean): boolean {
    const result = applyEnvelopes(this.run, envelopes);
    if (result.state !== this.run) {
      this.noteFoldWarnings(this.run, result.state);
      this.run = result.state;
    }
    const terminal = isTerminalStatus(this.run.status);
    const patch: Partial<ConnectionInfo> = {};
    if (first) patch.caughtUp = result.applied;
    if (result.gap) {
      patch.lastError = new ResumableError(
        'offset_gap',
        `expected offset ${result.gap.expected}, got ${result.gap.received}`,
      );
    }
    if (terminal) {
      this.phase = transition(this.phase, 'terminal');
      Object.assign(patch, { attempt: 0, nextRetryAt: null, lastError: null });
    }
    this.publish(this.run, patch, terminal ? { error: runErrorOf(this.run) } : {});
    this.writer.schedule();
    if (terminal) void this.writer.flush();
    // A gap: close and reconnect from the resume point, which the fold kept exact.
    return result.gap === null && !terminal;
  }

  private async applySnapshot(snapshot: RunSnapshot): Promise<void> {
    this.run = stateFromSnapshot(snapshot);
    this.base = this.run.offset;
    this.resuming = true;
    const terminal = isTerminalStatus(this.run.status);
    if (terminal) this.phase = transition(this.phase, 'terminal');
    this.publish(
      this.run,
      terminal ? { nextRetryAt: null } : {},
      terminal ? { error: runErrorOf(this.run) } : {},
    );
    // The server's word replaces the stored record even at a lower offset (a 409's record
    // was ahead of its log); an ordinary write could never move it back.
    this.writer.replace();
    await this.writer.flush();
  }

  /** The server's own 404: it no longer knows the run. Clear the record and say so. */
  private async forget(error: ResumableError): Promise<void> {
    this.warn(error);
    this.writer.cancel();
    this.loop.stop();
    this.fail(error);
    await this.writer.idle();
    await this.storage.delete(runRecordKey(this.key)).catch(() => {});
  }

  private fail(error: ResumableError): void {
    this.store.setState({ error });
    this.to('fail', { lastError: error, nextRetryAt: null });
  }

  /** The loop ended with nothing (more) to follow: rest in `ended`, or `idle`. */
  private settle(): void {
    this.to(isTerminalStatus(this.run.status) ? 'terminal' : 'park', {
      nextRetryAt: null,
      attempt: 0,
    });
    void this.writer.flush();
  }

  private onOnlineChange(online: boolean): void {
    if (online) {
      // Back online: retry at once, and finish a cancel that could not be sent.
      this.setConnection({ attempt: 0 });
      if (this.phase === 'stopping') void this.canceller.send();
      this.loop.wakeNow();
      return;
    }
    // navigator.onLine false means no interface is up: the open stream is dead, close it
    // now instead of waiting for the stall timer; the loop parks in `offline`.
    if (this.loop.active) this.loop.closeStream();
  }

  // ── store ──────────────────────────────────────────────────────────────────────────────

  private adopt(ids: Ids, run: RunState): void {
    this.ids = { runId: ids.runId, threadId: ids.threadId, token: ids.token };
    this.run = run;
    this.base = 0;
    this.resuming = false;
    this.phase = transition(this.phase, 'follow');
    this.publish(
      run,
      { attempt: 0, nextRetryAt: null, lastError: null, caughtUp: 0, resumes: 0 },
      { runId: ids.runId, threadId: ids.threadId, error: null, stopped: false },
    );
    // Written by the caller's flush (start, attach) before any event is applied.
    this.writer.touch();
  }

  private produceRecord(): RunRecord | null {
    if (!this.ids) return null;
    const record = recordOf(this.key, this.run, this.ids, this.env.now(), this.base);
    if (isStopped(this.phase) || this.getState().stopped) record.stopped = true;
    return record;
  }

  /** Storage may have fallen back to memory: the status says what is really used. */
  private notePersistence(): void {
    this.setConnection({ persistence: this.storage.kind });
  }

  /**
   * One store update per batch: the run, its messages and the connection together. The
   * connection object stays the same unless a fact other than the offset changed.
   */
  private publish(
    run: RunState,
    connection: Partial<ConnectionInfo>,
    extra: Partial<RunSessionState> = {},
  ): void {
    this.store.setState({
      ...extra,
      runId: this.ids?.runId ?? null,
      threadId: this.ids?.threadId ?? null,
      run,
      messages: run.messages,
      status: run.status,
      connection: this.nextConnection({
        ...connection,
        phase: connectionPhaseOf(this.phase, run.status, this.isResuming(connection)),
        persistence: this.storage.kind,
      }),
    });
  }

  private isResuming(patch: Partial<ConnectionInfo>): boolean {
    return this.resuming || (patch.attempt ?? this.getState().connection.attempt) > 0;
  }

  private setConnection(patch: Partial<ConnectionInfo>): void {
    const connection = this.nextConnection(patch);
    if (connection !== this.getState().connection) this.store.setState({ connection });
  }

  /** The current connection with `patch` applied: the same object when nothing changed. */
  private nextConnection(patch: Partial<ConnectionInfo>): ConnectionInfo {
    const connection = this.getState().connection;
    let changed = false;
    for (const key in patch) {
      // `offset` is not a fact of its own: it reads the store's resume point.
      if (key === 'offset') continue;
      if (connection[key as keyof ConnectionInfo] !== patch[key as keyof ConnectionInfo])
        changed = true;
    }
    if (!changed) return connection;
    return liveConnection({ ...connection, ...patch }, () => this.getState().run.offset);
  }

  private noteFoldWarnings(before: RunState, after: RunState): void {
    const fresh = after.warningCount - before.warningCount;
    if (fresh <= 0) return;
    for (const w of after.warnings.slice(-Math.min(fresh, after.warnings.length))) {
      this.warn(
        new ResumableError(
          w.code,
          w.offset === null ? w.message : `offset ${w.offset}: ${w.message}`,
        ),
      );
    }
  }

  private warn(warning: ResumableError): void {
    const warnings = [...this.getState().warnings, warning].slice(-MAX_SESSION_WARNINGS);
    this.store.setState({ warnings });
    if (this.options.onWarning) this.options.onWarning(warning);
    else console.warn(`[resumable] ${warning.code}: ${warning.message}`);
  }
}
