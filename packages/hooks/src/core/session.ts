import type { RunAgentInput, RunSnapshot, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  createRunState,
  isTerminalStatus,
  ResumableError,
  stateFromSnapshot,
} from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { HeadersOption, StartedRun } from './api.js';
import { RunApi } from './api.js';
import type { BackoffOptions } from './backoff.js';
import { backoffDelay } from './backoff.js';
import type { ResumableEnvironment } from './env.js';
import { createEnvironment } from './env.js';
import type { RunRecord } from './record.js';
import { parseRecord, recordOf, runRecordKey } from './record.js';
import type { RecordStorage } from './storage.js';
import { defaultStorage } from './storage.js';
import type { RunSessionState } from './store.js';
import { createSessionStore, liveConnection, MAX_SESSION_WARNINGS, runErrorOf } from './store.js';
import type { StreamOutcome } from './transport.js';
import { readEventStream } from './transport.js';
import type { ConnectionInfo, ConnectionPhase } from './types.js';
import { RecordWriter } from './writer.js';

export interface RunSessionOptions {
  /** Base URL of the Resumable endpoints, e.g. `/api` or `https://host/api`. */
  endpoint: string;
  /**
   * The slot this session persists under (a thread, a chat pane). One session per key per
   * page; a reload finds its run again through it.
   */
  key: string;
  /** Replace parts of the browser environment (fetch, clock, timers, online/visible). */
  env?: Partial<ResumableEnvironment>;
  /** @default IndexedDB (database `resumable`), or memory where IndexedDB is missing */
  storage?: RecordStorage;
  /** Extra headers per request, re-evaluated before every attempt. */
  headers?: HeadersOption;
  /** Reconnect delays. @default { initialMs: 250, maxMs: 10000 } */
  backoff?: BackoffOptions;
  /** A connection open this long resets the retry count. @default 5000 */
  stableAfterMs?: number;
  /** The server's heartbeat period; no byte for twice this is a stall. @default 15000 */
  heartbeatMs?: number;
  /** Record writes while streaming, at most. @default 4 */
  maxWritesPerSecond?: number;
  /** Give up after this many failed attempts in a row. @default Infinity */
  maxRetries?: number;
  /** Veto a retry (partysocket's habit): return false to stop with the error. */
  shouldReconnect?: (error: ResumableError, attempt: number) => boolean;
  /** Typed warnings the session survived. @default console.warn */
  onWarning?: (warning: ResumableError) => void;
}

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

interface Ids {
  runId: string;
  threadId: string;
  token: string | null;
}

/**
 * One run's client side: a state machine `idle → connecting → streaming ⇄ reconnecting →
 * finished | cancelled | error` (plus `offline`), the fold, the persisted record and a
 * zustand store. Framework-free; React only subscribes to `store`.
 *
 * Work starts with the first `retain()` and stops a tick after the last `release()`
 * (TanStack's Subscribable), so StrictMode's mount-unmount-mount opens one connection.
 */
export class RunSession {
  readonly key: string;
  readonly store: StoreApi<RunSessionState>;
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly storage: RecordStorage;
  private readonly options: RunSessionOptions;
  private readonly writer: RecordWriter;

  private ids: Ids | null = null;
  private run: RunState = createRunState();
  /** `lastOffset` of the server snapshot `run` was built on (0: from the log's start). */
  private base = 0;
  private stopped = false;
  private cancelConfirmed = false;
  /** The cancel being sent (and retried), while it is, and the run it is for. */
  private cancelling: { runId: string; done: Promise<void> } | null = null;
  /** Bumped to end the current connection loop (stop, new run, dispose). */
  private generation = 0;
  private looping = false;
  private abort: AbortController | null = null;
  private wake: (() => void) | null = null;
  private refs = 0;
  private releaseTimer: unknown;
  private hydration: Promise<void> | null = null;
  private unsubscribers: (() => void)[] = [];
  /** Set after a drop or a reload: the next open counts as a resume. */
  private resuming = false;
  private disposed = false;
  /** Bytes read on event streams (bench). */
  bytesReceived = 0;

  constructor(options: RunSessionOptions) {
    this.options = options;
    this.key = options.key;
    this.env = createEnvironment(options.env);
    this.storage = options.storage ?? defaultStorage((error) => this.warn(error));
    this.api = new RunApi({
      endpoint: options.endpoint,
      fetch: this.env.fetch,
      now: this.env.now,
      headers: options.headers,
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
      onError: (error) =>
        this.warn(
          new ResumableError('storage_unavailable', 'could not persist the run record', {
            cause: error,
          }),
        ),
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
    if (this.releaseTimer !== undefined) {
      this.env.clearTimeout(this.releaseTimer);
      this.releaseTimer = undefined;
    }
    this.refs++;
    if (this.refs === 1) this.activate();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  private release(): void {
    this.refs--;
    if (this.refs > 0) return;
    // Deferred: StrictMode (and a route change that remounts the same key) gives it back
    // at once, and the connection survives.
    this.releaseTimer = this.env.setTimeout(() => {
      this.releaseTimer = undefined;
      if (this.refs === 0) this.deactivate();
    }, 0);
  }

  private activate(): void {
    this.unsubscribers.push(
      this.env.online.subscribe((online) => this.onOnlineChange(online)),
      this.env.visible.subscribe((visible) => {
        if (visible) this.wakeNow();
      }),
      this.env.onPageHide(() => {
        void this.writer.flush();
      }),
    );
    void this.hydrate().then(() => this.ensureLoop());
  }

  private deactivate(): void {
    for (const off of this.unsubscribers.splice(0)) off();
    this.stopLoop();
    void this.writer.flush();
    if (!isTerminalStatus(this.run.status) && this.ids) {
      this.setConnection({ phase: 'idle', nextRetryAt: null });
    }
  }

  /** Ends everything for good (tests, HMR, a registry being torn down). */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.refs = 0;
    if (this.releaseTimer !== undefined) this.env.clearTimeout(this.releaseTimer);
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
    if (this.ids !== null) {
      this.store.setState({ hydrated: true });
      return;
    }
    const record = parseRecord(raw, this.key);
    if (record instanceof ResumableError) {
      this.warn(record);
      await this.storage.delete(runRecordKey(this.key)).catch(() => {});
    } else if (record !== null) {
      try {
        this.restore(record);
      } catch (cause) {
        // Passed the shape check but not the fold (e.g. a tool call list that is not a
        // list): as corrupt as any other bad record.
        this.ids = null;
        this.run = createRunState();
        this.warn(
          new ResumableError(
            'corrupt_record',
            `persisted record "${this.key}" discarded: ${String(cause)}`,
          ),
        );
        await this.storage.delete(runRecordKey(this.key)).catch(() => {});
      }
    }
    this.store.setState({ hydrated: true });
    this.setConnection({ persistence: this.storage.kind });
  }

  private restore(record: RunRecord): void {
    this.ids = { runId: record.runId, threadId: record.threadId, token: record.token };
    this.run = stateFromSnapshot({ ...record.snapshot, lastOffset: record.offset });
    this.base = record.base ?? 0;
    this.stopped = record.stopped === true;
    this.resuming = record.offset > 0;
    this.publish(this.run, { phase: this.phaseAtRest() }, { stopped: this.stopped });
  }

  // ── commands ───────────────────────────────────────────────────────────────────────────

  /**
   * Starts a run: `POST /runs` with a client-chosen `runId`, persists `{runId, threadId,
   * token}` before any event is applied, then follows the stream.
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
    this.stopLoop();
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
    this.stopLoop();
    this.adopt(input, createRunState({ runId: input.runId, threadId: input.threadId }));
    try {
      const snapshot = await this.api.getRun(input.runId, input.token);
      if (this.ids?.runId === input.runId) this.applySnapshot(snapshot);
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
   * `online`; refused with 401/403/400: on `retry()`). 5xx/429 are retried with backoff.
   */
  async cancel(): Promise<void> {
    const ids = this.ids;
    if (!ids || isTerminalStatus(this.run.status)) return;
    this.stopped = true;
    this.stopLoop();
    this.store.setState({ stopped: true });
    this.setConnection({ phase: 'cancelled', nextRetryAt: null });
    this.writer.schedule();
    await this.writer.flush();
    await this.sendCancel();
  }

  /**
   * Sends the cancel; a call while one is already retrying skips its backoff wait instead
   * of sending a second one.
   */
  private sendCancel(): Promise<void> {
    const runId = this.ids?.runId;
    if (runId === undefined) return Promise.resolve();
    if (this.cancelling?.runId === runId) {
      this.wakeNow();
      return this.cancelling.done;
    }
    // (A cancel still in flight for an earlier run ends on its own: it is no longer current.)
    const cancelling = {
      runId,
      done: this.cancelUntilTaken().finally(() => {
        if (this.cancelling === cancelling) this.cancelling = null;
      }),
    };
    this.cancelling = cancelling;
    return cancelling.done;
  }

  /**
   * `POST …/cancel` until the server takes it (202) or no longer knows the run (404). Until
   * then the UI says stopped while the run goes on on the server, so a 5xx, a 429 or a
   * network failure is retried with the session's backoff (`Retry-After` when given), like
   * the stream. Offline it waits for `online`; 401/403/400 (or `maxRetries`,
   * `shouldReconnect`) end it until `retry()` or a reload.
   */
  private async cancelUntilTaken(): Promise<void> {
    const ids = this.ids;
    if (!ids || this.cancelConfirmed) return;
    // cancel() stopped the stream loop first; a new run, clear() or dispose bump this.
    const generation = this.generation;
    const current = () => this.live(generation) && this.ids?.runId === ids.runId;
    for (let failures = 1; ; failures++) {
      try {
        await this.api.cancelRun(ids.runId, ids.token);
      } catch (error) {
        const typed = toResumable(error);
        if (!current()) return;
        if (typed.code === 'run_not_found') return this.forget(typed);
        this.setConnection({ lastError: typed, nextRetryAt: null });
        this.warn(typed);
        // Offline: the cancel goes out again on `online` (it is idempotent).
        if (!this.env.online.get() || FINAL_CANCEL_ERRORS.has(typed.code)) return;
        const maxRetries = this.options.maxRetries ?? Number.POSITIVE_INFINITY;
        if (failures > maxRetries || this.options.shouldReconnect?.(typed, failures) === false)
          return;
        const delay =
          typed.retryAfter !== undefined
            ? typed.retryAfter * 1000
            : backoffDelay(failures, this.env.random, this.options.backoff);
        this.setConnection({ attempt: failures, nextRetryAt: this.env.now() + delay });
        await this.sleep(generation, delay);
        if (!current()) return;
        continue;
      }
      if (!current()) return;
      this.cancelConfirmed = true;
      this.setConnection({ attempt: 0, nextRetryAt: null });
      // The server's log now ends with RUN_FINISHED(cancelled): read it to the end so the
      // text matches the server's exactly.
      this.ensureLoop();
      return;
    }
  }

  /** Reconnects now (after an error, or to skip a backoff wait). */
  retry(): void {
    if (!this.ids) return;
    const state = this.getState();
    if (state.error?.code === 'run_not_found') return;
    this.store.setState({ error: runErrorOf(this.run) });
    this.setConnection({ attempt: 0 });
    if (this.stopped && !this.cancelConfirmed) {
      void this.sendCancel();
      return;
    }
    if (this.looping) this.wakeNow();
    else this.ensureLoop();
  }

  /** Forgets the run (a new conversation): stops following it and deletes the record. */
  async clear(): Promise<void> {
    this.stopLoop();
    this.writer.cancel();
    this.ids = null;
    this.stopped = false;
    this.cancelConfirmed = false;
    this.run = createRunState();
    this.base = 0;
    this.publish(
      this.run,
      { phase: 'idle', attempt: 0, nextRetryAt: null, lastError: null, caughtUp: 0 },
      {
        runId: null,
        threadId: null,
        error: null,
        stopped: false,
      },
    );
    await this.writer.idle();
    await this.storage.delete(runRecordKey(this.key)).catch(() => {});
  }

  /** Writes the record now (tests; the session already does it on pagehide and at the end). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  // ── the connection loop ────────────────────────────────────────────────────────────────

  private ensureLoop(): void {
    if (this.disposed || this.refs === 0 || this.looping || !this.ids) return;
    if (isTerminalStatus(this.run.status)) return;
    if (this.stopped && !this.cancelConfirmed) {
      void this.sendCancel();
      return;
    }
    const generation = ++this.generation;
    this.looping = true;
    void this.loop(generation)
      .catch((error) => {
        // A bug, not a network fault: stop visibly instead of leaving a dangling promise.
        if (this.generation === generation) this.fail(toResumable(error));
      })
      .finally(() => {
        if (this.generation === generation) this.looping = false;
      });
  }

  private stopLoop(): void {
    this.generation++;
    this.looping = false;
    this.abort?.abort();
    this.abort = null;
    this.wakeNow();
  }

  private live(generation: number): boolean {
    return this.generation === generation && !this.disposed;
  }

  private async loop(generation: number): Promise<void> {
    while (this.live(generation)) {
      const ids = this.ids;
      if (!ids || isTerminalStatus(this.run.status)) return this.settle();
      if (!this.env.online.get()) {
        this.setConnection({ phase: 'offline', nextRetryAt: null });
        await this.sleep(generation, Number.POSITIVE_INFINITY);
        continue;
      }
      const attempt = this.getState().connection.attempt;
      this.setConnection({
        phase: this.stopped
          ? 'cancelled'
          : attempt > 0 || this.resuming
            ? 'reconnecting'
            : 'connecting',
        nextRetryAt: null,
      });
      const outcome = await this.connectOnce(generation, ids);
      if (!this.live(generation)) return;
      if (isTerminalStatus(this.run.status)) return this.settle();
      if (!this.env.online.get()) {
        // Dropped because the network went away: park in `offline`, resume on `online`.
        this.resuming = true;
        continue;
      }
      const next = await this.handleOutcome(generation, ids, outcome);
      if (next === 'stop' || !this.live(generation)) return;
      if (next === 'again') continue;
      // A retry: backoff (or Retry-After), unless vetoed or exhausted.
      const error = next;
      const failures = this.getState().connection.attempt + 1;
      const maxRetries = this.options.maxRetries ?? Number.POSITIVE_INFINITY;
      if (failures > maxRetries || this.options.shouldReconnect?.(error, failures) === false) {
        return this.fail(error);
      }
      const delay =
        error.retryAfter !== undefined
          ? error.retryAfter * 1000
          : backoffDelay(failures, this.env.random, this.options.backoff);
      this.resuming = true;
      this.setConnection({
        phase: this.stopped ? 'cancelled' : 'reconnecting',
        attempt: failures,
        lastError: error,
        nextRetryAt: this.env.now() + delay,
      });
      await this.sleep(generation, delay);
    }
  }

  private async connectOnce(generation: number, ids: Ids): Promise<StreamOutcome> {
    const controller = new AbortController();
    this.abort = controller;
    let first = true;
    let stableTimer: unknown;
    let headers: Record<string, string>;
    try {
      headers = await this.api.headers(ids.token, { runId: ids.runId, threadId: ids.threadId });
    } catch (error) {
      return { kind: 'network', error: toResumable(error) };
    }
    if (!this.live(generation)) return { kind: 'aborted' };
    const heartbeat = this.options.heartbeatMs ?? 15_000;
    const outcome = await readEventStream({
      fetch: this.env.fetch,
      url: this.api.eventsUrl(ids.runId, this.run.offset),
      after: this.run.offset,
      headers,
      signal: controller.signal,
      stallMs: heartbeat * 2,
      setTimeout: this.env.setTimeout,
      clearTimeout: this.env.clearTimeout,
      now: this.env.now,
      onOpen: () => {
        const resumed = this.resuming;
        this.resuming = false;
        const connection = this.getState().connection;
        this.setConnection({
          phase: this.stopped ? 'cancelled' : 'streaming',
          nextRetryAt: null,
          caughtUp: 0,
          resumes: connection.resumes + (resumed ? 1 : 0),
        });
        stableTimer = this.env.setTimeout(() => {
          if (this.live(generation)) this.setConnection({ attempt: 0, lastError: null });
        }, this.options.stableAfterMs ?? 5000);
      },
      onBytes: (bytes) => {
        this.bytesReceived += bytes;
      },
      onWarning: (warning) => this.warn(warning),
      onBatch: (envelopes) => {
        if (!this.live(generation)) return false;
        const result = applyEnvelopes(this.run, envelopes);
        const caughtUp = first ? result.applied : undefined;
        first = false;
        if (result.state !== this.run) {
          this.noteFoldWarnings(this.run, result.state);
          this.run = result.state;
        }
        const terminal = isTerminalStatus(this.run.status);
        const patch: Partial<ConnectionInfo> = {};
        if (caughtUp !== undefined) patch.caughtUp = caughtUp;
        if (result.gap) {
          patch.lastError = new ResumableError(
            'offset_gap',
            `expected offset ${result.gap.expected}, got ${result.gap.received}`,
          );
        }
        if (terminal)
          Object.assign(patch, {
            phase: this.phaseAtRest(),
            attempt: 0,
            nextRetryAt: null,
            lastError: null,
          });
        this.publish(this.run, patch, terminal ? { error: runErrorOf(this.run) } : {});
        this.writer.schedule();
        if (terminal) void this.writer.flush();
        // A gap: close and reconnect from the resume point, which the fold kept exact.
        return result.gap === null && !terminal;
      },
    });
    if (stableTimer !== undefined) this.env.clearTimeout(stableTimer);
    if (this.abort === controller) this.abort = null;
    return outcome;
  }

  /** What to do after a connection ended without the run being over. */
  private async handleOutcome(
    generation: number,
    ids: Ids,
    outcome: StreamOutcome,
  ): Promise<'stop' | 'again' | ResumableError> {
    switch (outcome.kind) {
      case 'ended':
        return new ResumableError('network', 'the stream closed before the run ended');
      case 'aborted': {
        // Only a gap aborts from inside while the loop is live.
        const last = this.getState().connection.lastError;
        return last?.code === 'offset_gap'
          ? last
          : new ResumableError('aborted', 'the stream was closed');
      }
      case 'network':
      case 'stalled':
        return outcome.error;
      case 'no_content':
        // Over on the server, and we lack its end: the snapshot has it.
        return (await this.loadSnapshot(generation, ids)) ?? 'again';
      case 'http': {
        const error = outcome.error;
        switch (error.code) {
          case 'offset_expired':
          case 'offset_ahead':
            return (await this.loadSnapshot(generation, ids)) ?? 'again';
          case 'run_not_found':
          case 'thread_not_found':
            await this.forget(error);
            return 'stop';
          case 'unauthorized':
          case 'forbidden':
          case 'bad_request':
            this.fail(error);
            return 'stop';
          default:
            return error;
        }
      }
    }
  }

  /** `GET /runs/:id` replaces the state; returns an error to retry on, or null. */
  private async loadSnapshot(generation: number, ids: Ids): Promise<ResumableError | null> {
    let snapshot: RunSnapshot;
    try {
      snapshot = await this.api.getRun(ids.runId, ids.token);
    } catch (error) {
      const typed = toResumable(error);
      if (typed.code === 'run_not_found') {
        await this.forget(typed);
        this.generation++;
        return null;
      }
      return typed;
    }
    if (!this.live(generation)) return null;
    this.applySnapshot(snapshot);
    await this.writer.flush();
    return null;
  }

  private applySnapshot(snapshot: RunSnapshot): void {
    this.run = stateFromSnapshot(snapshot);
    this.base = this.run.offset;
    this.resuming = true;
    const terminal = isTerminalStatus(this.run.status);
    this.publish(
      this.run,
      terminal ? { phase: this.phaseAtRest(), nextRetryAt: null } : {},
      terminal ? { error: runErrorOf(this.run) } : {},
    );
    // The server's word replaces the stored record even at a lower offset (a 409's record
    // was ahead of its log); an ordinary write could never move it back.
    this.writer.replace();
  }

  /** 404: the server no longer knows the run. Clear the record and say so. */
  private async forget(error: ResumableError): Promise<void> {
    this.warn(error);
    this.writer.cancel();
    this.generation++;
    this.looping = false;
    this.store.setState({ error });
    this.setConnection({ phase: 'error', lastError: error, nextRetryAt: null });
    await this.writer.idle();
    await this.storage.delete(runRecordKey(this.key)).catch(() => {});
  }

  private fail(error: ResumableError): void {
    this.looping = false;
    this.store.setState({ error });
    this.setConnection({ phase: 'error', lastError: error, nextRetryAt: null });
  }

  private settle(): void {
    this.looping = false;
    this.setConnection({ phase: this.phaseAtRest(), nextRetryAt: null, attempt: 0 });
    void this.writer.flush();
  }

  private phaseAtRest(): ConnectionPhase {
    switch (this.run.status) {
      case 'finished':
        return 'finished';
      case 'cancelled':
        return 'cancelled';
      case 'error':
        return 'error';
      default:
        return this.stopped ? 'cancelled' : 'idle';
    }
  }

  // ── signals and timers ─────────────────────────────────────────────────────────────────

  private onOnlineChange(online: boolean): void {
    if (online) {
      // Back online: retry at once, and finish a cancel that could not be sent.
      this.setConnection({ attempt: 0 });
      if (this.stopped && !this.cancelConfirmed) void this.sendCancel();
      this.wakeNow();
      return;
    }
    // navigator.onLine false means no interface is up: the open stream is dead, close it
    // now instead of waiting for the stall timer; the loop parks in `offline`.
    if (this.looping && this.abort) {
      this.abort.abort();
    }
  }

  private wakeNow(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Waits `ms`, or until woken (online, visible, retry, stop). */
  private sleep(generation: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: unknown;
      const done = () => {
        if (timer !== undefined) this.env.clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      if (!this.live(generation)) return resolve();
      this.wake = done;
      if (Number.isFinite(ms)) timer = this.env.setTimeout(done, ms);
    });
  }

  // ── store ──────────────────────────────────────────────────────────────────────────────

  private adopt(ids: Ids, run: RunState): void {
    this.ids = { runId: ids.runId, threadId: ids.threadId, token: ids.token };
    this.run = run;
    this.base = 0;
    this.stopped = false;
    this.cancelConfirmed = false;
    this.resuming = false;
    this.publish(
      run,
      {
        phase: 'connecting',
        attempt: 0,
        nextRetryAt: null,
        lastError: null,
        caughtUp: 0,
        resumes: 0,
      },
      { runId: ids.runId, threadId: ids.threadId, error: null, stopped: false },
    );
    // Written by the caller's flush (start, attach) before any event is applied.
    this.writer.touch();
  }

  private produceRecord(): RunRecord | null {
    if (!this.ids) return null;
    const record = recordOf(this.key, this.run, this.ids, this.env.now(), this.base);
    if (this.stopped) record.stopped = true;
    return record;
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
      connection: this.nextConnection({ ...connection, persistence: this.storage.kind }),
    });
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

/** A cancel refused with these is not retried by itself (`retry()` sends it again). */
const FINAL_CANCEL_ERRORS: ReadonlySet<string> = new Set([
  'unauthorized',
  'forbidden',
  'bad_request',
  'thread_not_found',
]);

export function toResumable(error: unknown): ResumableError {
  if (error instanceof ResumableError) return error;
  return new ResumableError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
