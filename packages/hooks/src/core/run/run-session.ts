import type { RunAgentInput } from '@resumable/protocol';
import { createRunState, isTerminalStatus, ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { DEFAULT_MAX_WRITES_PER_SECOND } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import { createEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import { KeepAlive } from '../base/keep-alive.js';
import type { StartedRun } from '../net/run-api.js';
import { RunApi } from '../net/run-api.js';
import { RecordWriter } from '../records/record-writer.js';
import type { RecordRead, RunResumeRecord } from '../records/run-record.js';
import { loadRecord, runRecordKey, runStateOfRecord } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import { storageFor, storageUnavailable } from '../records/storage.js';
import { watchStorage } from '../records/storage-watch.js';
import type { CancelSender } from './cancel-sender.js';
import { runErrorOf } from './connection.js';
import { FollowedRun } from './followed-run.js';
import type { RunSessionOptions } from './options.js';
import { ReconnectLoop } from './reconnect-loop.js';
import { SessionPublisher } from './session-publisher.js';
import type { RunSessionState } from './session-store.js';
import { createSessionStore } from './session-store.js';
import { SharedStream } from './shared-stream.js';

export type { RunSessionOptions } from './options.js';

/** What `RunSession.start` (and `useResumableRun().start`) takes: AG-UI `RunAgentInput` fields. */
export interface StartRunInput extends Partial<Omit<RunAgentInput, 'runId'>> {
  /** Client-chosen run id, so a retried POST never starts two runs. @default crypto.randomUUID() */
  runId?: string;
  /** The thread's token when continuing an existing thread. */
  token?: string | null;
}

/**
 * One run's client side: the written state machine of `machine.ts` (one `transition`
 * over named phases), the fold, the persisted record and a zustand store. The reconnect
 * loop (`reconnect.ts`), cancel-with-retry (`cancel.ts`) and keep-alive (`keepalive.ts`)
 * are modules of their own; this class holds the commands, the record and the store.
 * Framework-free; React only subscribes to `store`.
 */
export class RunSession {
  /** The slot its record is kept under (`RunSessionOptions.key`). */
  readonly key: string;
  /** The run's state (zustand): subscribe to follow it. */
  readonly store: StoreApi<RunSessionState>;
  /** The outside world it uses (the options' `env` over the browser's). */
  readonly env: ResumableEnvironment;
  /**
   * The protocol's requests, with the session's endpoint, headers and timeouts.
   * @internal
   */
  readonly api: RunApi;
  /** Where its records are kept (memory once the storage failed). */
  readonly storage: RecordStorage;
  private readonly options: RunSessionOptions;
  private readonly writer: RecordWriter;
  private readonly keepAlive: KeepAlive;
  private readonly loop: ReconnectLoop;
  /** Cancel-with-retry, a lazy chunk loaded on the first stop (out of the first paint). */
  private canceller: Promise<CancelSender> | null = null;
  private readonly out: SessionPublisher;
  /** The followed run and the machine's phase (the loop's host). */
  private readonly followed: FollowedRun;

  /**
   * Who opens this session's stream when tabs share a conversation (`conversation.ts`).
   * @internal
   */
  readonly shared: SharedStream;

  private hydration: Promise<void> | null = null;
  /** The run whose snapshot `join` is reading: no stream of it opens meanwhile. */
  private joining: string | null = null;
  private unsubscribers: (() => void)[] = [];
  private readonly leaveStorage: () => void;
  private disposed = false;

  constructor(options: RunSessionOptions) {
    this.key = options.key;
    this.env = createEnvironment(options.env);
    this.storage = storageFor(options);
    this.api = new RunApi({
      endpoint: options.endpoint,
      fetch: this.env.fetch,
      now: this.env.now,
      headers: options.headers,
      requestTimeoutMs: options.requestTimeoutMs,
      key: options.key,
    });
    this.store = createSessionStore(options.key, this.storage.kind);
    this.out = new SessionPublisher(this.store, options.onWarning);
    this.writer = new RecordWriter({
      storage: this.storage,
      storageKey: runRecordKey(options.key),
      // A follower tab (or one whose election is pending) never writes: the leader does.
      produce: () => (this.shared.ownsStream ? this.followed.produceRecord() : null),
      minIntervalMs: 1000 / (options.maxWritesPerSecond ?? DEFAULT_MAX_WRITES_PER_SECOND),
      now: this.env.now,
      setTimeout: this.env.setTimeout,
      clearTimeout: this.env.clearTimeout,
      onStored: () => this.followed.notePersistence(),
      onError: (e) => this.out.warn(storageUnavailable('could not persist the run record', e)),
      observe: this.api.scope,
    });
    this.keepAlive = new KeepAlive({
      activate: () => this.activate(),
      deactivate: () => this.deactivate(),
      setTimeout: this.env.setTimeout,
      clearTimeout: this.env.clearTimeout,
    });
    this.followed = new FollowedRun({
      key: options.key,
      env: this.env,
      api: this.api,
      options,
      store: this.store,
      out: this.out,
      storage: this.storage,
      writer: () => this.writer,
      stopLoop: () => this.loop.stop(),
      onBatch: (envelopes) => this.shared.emit(envelopes),
    });
    this.shared = new SharedStream({
      followed: this.followed,
      writer: this.writer,
      stopLoop: () => this.loop.stop(),
      setConnection: (patch) => this.out.setConnection(patch),
    });
    this.loop = new ReconnectLoop(this.followed);
    this.options = options;
    // A storage shared by the page falls back once: every session hears it, till dispose.
    this.leaveStorage = watchStorage(this.storage, this.api.scope, (error) => {
      this.followed.notePersistence();
      this.out.warn(error);
    });
  }

  /**
   * Sends the owed cancel through `CancelSender`, loaded on first use. A chunk that fails
   * to load is a warning: the cancel stays owed (`retry()` or `online` sends it again).
   */
  private async sendCancel(): Promise<void> {
    this.canceller ??= import('./cancel-sender.js').then(
      ({ CancelSender }) =>
        new CancelSender({
          env: this.env,
          api: this.api,
          loop: this.loop,
          options: this.options,
          ids: () => this.followed.ids,
          setConnection: (patch) => this.out.setConnection(patch),
          warn: (error) => this.out.warn(error),
          forget: (error) => this.followed.forget(error),
          taken: () => {
            this.followed.to('cancelTaken');
            // The server's log now ends with RUN_FINISHED(cancelled): read it to the end so
            // the text matches the server's exactly.
            this.ensureLoop();
          },
        }),
    );
    let sender: CancelSender;
    try {
      sender = await this.canceller;
    } catch (error) {
      this.canceller = null;
      this.out.warn(toResumable(error));
      return;
    }
    await sender.send();
  }

  /** Bytes read on event streams (bench). */
  get bytesReceived(): number {
    return this.followed.bytesReceived;
  }

  /** The run now. */
  getState(): RunSessionState {
    return this.store.getState();
  }

  /** The token of the run's thread (`threadId`'s), null without a run: they go together. */
  get token(): string | null {
    return this.followed.ids?.token ?? null;
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
    if (this.followed.ids) this.followed.to('park', { nextRetryAt: null });
  }

  /** Ends everything for good (tests, HMR, a registry being torn down). Always settles. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.leaveStorage();
    this.keepAlive.reset();
    this.deactivate();
    await this.writer.idle();
  }

  /**
   * Reads the persisted record once and shows its snapshot before any network; `read`: the
   * record the first paint already read (`first-paint.ts`), used instead of a second read.
   * The session hydrates itself when first held.
   * @internal
   */
  hydrate(read?: Promise<RecordRead>): Promise<void> {
    this.hydration ??= this.readRecord(read ?? loadRecord(this.storage, this.key));
    return this.hydration;
  }

  private async readRecord(read: Promise<RecordRead>): Promise<void> {
    const { record, problem } = await read;
    // A run started before the read finished wins over an older persisted one.
    if (this.followed.ids === null && record !== null) {
      try {
        this.restore(record);
      } catch (cause) {
        // Passed the shape check but not the fold: as corrupt as any other bad record.
        this.followed.ids = null;
        this.followed.run = createRunState();
        this.discard(
          new ResumableError(
            'corrupt_record',
            `persisted record "${this.key}" discarded: ${String(cause)}`,
          ),
        );
      }
    }
    if (problem !== null) this.discard(problem);
    this.store.setState({ hydrated: true });
    this.followed.notePersistence();
  }

  private discard(problem: ResumableError): void {
    this.out.warn(problem);
    if (problem.code === 'corrupt_record') {
      void this.storage.delete(runRecordKey(this.key)).catch(() => {});
    }
  }

  private restore(record: RunResumeRecord): void {
    this.followed.ids = { runId: record.runId, threadId: record.threadId, token: record.token };
    this.followed.run = runStateOfRecord(record);
    this.followed.base = record.base ?? 0;
    this.followed.resuming = record.offset > 0;
    this.followed.phase = isTerminalStatus(this.followed.run.status)
      ? 'ended'
      : record.stopped
        ? 'stopping'
        : 'idle';
    this.followed.publish(this.followed.run, {}, { stopped: record.stopped === true });
    this.followed.tellRun('restored');
  }

  // ── commands ───────────────────────────────────────────────────────────────────────────

  /**
   * Starts a run: `POST /runs` with a client-chosen `runId`, persists `{runId, threadId,
   * token}` before any event is applied, then follows the stream. Settles within the
   * request timeout (a hung POST is a `timeout` error).
   */
  async start(input: StartRunInput = {}): Promise<StartedRun> {
    let started: StartedRun;
    try {
      started = await this.post(input);
    } catch (error) {
      const typed = toResumable(error);
      this.noteStartFailure(typed);
      throw typed;
    }
    await this.adopt(started);
    this.ensureLoop();
    return started;
  }

  /**
   * `POST /runs` alone: the run it starts is not followed yet, and a failure is only thrown
   * (a chat decides what it means: another device's run to follow, a retry, an error).
   */
  async post(input: StartRunInput = {}): Promise<StartedRun> {
    await this.hydrate();
    const {
      token = this.followed.ids?.threadId === input.threadId ? this.followed.ids?.token : null,
      ...rest
    } = input;
    const runId = input.runId ?? this.env.randomUUID();
    const body: Partial<RunAgentInput> = { messages: [], ...rest, runId };
    return this.api.startRun(body, token ?? null);
  }

  /** A POST's failure as the session's error (what `start` shows; a chat's outbox too). */
  noteStartFailure(error: ResumableError): void {
    this.store.setState({ error });
    this.out.setConnection({ lastError: error });
  }

  /**
   * Makes a run this page started the followed one, its record written before any event is
   * applied; its stream opens on `resume` (`start` does both).
   */
  async adopt(started: StartedRun): Promise<void> {
    this.loop.stop();
    this.followed.adopt(
      started,
      createRunState({ runId: started.runId, threadId: started.threadId }),
      'started',
    );
    await this.writer.flush();
  }

  /** Shows a prompt's scheduled retry (the chat's outbox) like the stream's own. */
  noteRetry(nextRetryAt: number | null): void {
    this.out.setConnection({ nextRetryAt });
  }

  /**
   * Joins a run already going (a second tab or device): its snapshot first, then the live
   * events after it.
   */
  async attach(input: StartedRun): Promise<void> {
    await this.join(input);
    this.ensureLoop();
  }

  /**
   * Follows a run this page did not start, up to its stream: its snapshot (the one a check
   * of the announcement just read, `SharedStream.readSnapshot`), and no stream while it
   * loads — the stream opens on `resume`, after the snapshot's offset. A run the session
   * already follows keeps its own offset (no snapshot). Resolves true when the run is over.
   */
  async join(input: StartedRun): Promise<boolean> {
    await this.hydrate();
    if (this.followed.ids?.runId !== input.runId) {
      this.loop.stop();
      this.followed.adopt(
        input,
        createRunState({ runId: input.runId, threadId: input.threadId }),
        'joined',
      );
      this.joining = input.runId;
      try {
        const snapshot = await this.shared.readSnapshot(input.runId, input.token);
        if (this.followed.ids?.runId === input.runId) await this.followed.applySnapshot(snapshot);
      } catch (error) {
        // The event log from 0 gives the same state, only slower.
        this.out.warn(toResumable(error));
      } finally {
        if (this.joining === input.runId) this.joining = null;
      }
      await this.writer.flush();
    }
    return this.followed.ids?.runId !== input.runId || this.isOver();
  }

  /**
   * Follows the session's run `runId` from the offset it holds (its stream, or another
   * tab's batches in a follower). True when the run is over (nothing to open); false too
   * when the session follows another run.
   */
  resume(runId: string): boolean {
    if (this.followed.ids?.runId !== runId) return false;
    this.ensureLoop();
    return this.isOver();
  }

  /** Nothing more comes of the run: ended, stopped, or failed. */
  private isOver(): boolean {
    const { stopped, error } = this.getState();
    return isTerminalStatus(this.followed.run.status) || stopped || error !== null;
  }

  /**
   * Stops the run on the server (not a mere disconnect); never auto-revived. Resolves once
   * the server took the cancel, or when it cannot be sent now (offline: it goes out on
   * `online`; refused with 401/403/400: on `retry()`). Transient failures are retried
   * through the retry policy.
   */
  async cancel(): Promise<void> {
    if (!this.followed.ids || isTerminalStatus(this.followed.run.status)) return;
    this.loop.stop();
    this.store.setState({ stopped: true });
    this.followed.to('stop', { nextRetryAt: null });
    this.writer.schedule();
    await this.writer.flush();
    await this.sendCancel();
  }

  /** Reconnects now (after an error, or to skip a wait), or re-sends an owed cancel. */
  retry(): void {
    if (!this.followed.ids || this.getState().error?.code === 'run_not_found') return;
    this.store.setState({ error: runErrorOf(this.followed.run) });
    this.out.setConnection({ attempt: 0 });
    if (this.followed.phase === 'stopping') {
      void this.sendCancel();
      return;
    }
    if (this.loop.active) this.loop.wakeNow();
    else this.ensureLoop();
  }

  /** Forgets the run (a new conversation): stops following it and deletes the record. */
  async clear(): Promise<void> {
    this.loop.stop();
    this.writer.cancel();
    this.followed.ids = null;
    this.followed.run = createRunState();
    this.followed.base = 0;
    this.followed.to('clear', { attempt: 0, nextRetryAt: null, lastError: null, caughtUp: 0 });
    this.followed.publish(
      this.followed.run,
      {},
      { runId: null, threadId: null, error: null, stopped: false },
    );
    await this.writer.idle();
    await this.storage.delete(runRecordKey(this.key)).catch(() => {});
  }

  /** Writes the record now (tests; the session already does it on pagehide and at the end). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  // ── the machine ────────────────────────────────────────────────────────────────────────

  private ensureLoop(): void {
    if (this.disposed || !this.keepAlive.held || this.loop.active || !this.followed.ids) return;
    // A join opens the stream after its snapshot (`resume`), never from 0 while it loads.
    if (this.joining === this.followed.ids.runId) return;
    if (isTerminalStatus(this.followed.run.status)) return;
    if (this.followed.phase === 'stopping') {
      void this.sendCancel();
      return;
    }
    if (this.shared.ownsStream) this.loop.start();
    else this.shared.follow();
  }

  private onOnlineChange(online: boolean): void {
    if (online) {
      // Back online: retry at once, and finish a cancel that could not be sent.
      this.out.setConnection({ attempt: 0 });
      if (this.followed.phase === 'stopping') void this.sendCancel();
      this.loop.wakeNow();
      return;
    }
    // navigator.onLine false means no interface is up: the open stream is dead, close it
    // now instead of waiting for the stall timer; the loop parks in `offline`.
    if (this.loop.active) this.loop.closeStream();
  }
}
