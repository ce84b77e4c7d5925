import type { Envelope, RunSnapshot, RunState } from '@resumable/protocol';
import { errorAction, isTerminalStatus, ResumableError } from '@resumable/protocol';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_STABLE_AFTER_MS } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import type { StreamOutcome } from '../net/event-stream.js';
import { readEventStream } from '../net/event-stream.js';
import type { RunApi, StartedRun } from '../net/run-api.js';
import { LoopLife } from '../retry/loop-life.js';
import type { RetryLimits } from '../retry/retrier.js';
import { Retrier, snapshotReadAction } from '../retry/retrier.js';
import type { ConnectionInfo } from './connection.js';
import type { SessionEvent } from './machine.js';

/** The session's options the loop reads (see `RunSessionOptions` for their docs). */
export interface LoopOptions extends RetryLimits {
  stableAfterMs?: number | undefined;
  heartbeatMs?: number | undefined;
  maxEventBytes?: number | undefined;
}

/** What the loop needs from its session: the state it reads and the moves it asks for. */
export interface LoopHost {
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly options: LoopOptions;
  /** A machine transition, published with `patch` to the connection facts. */
  to(event: SessionEvent, patch?: Partial<ConnectionInfo>): void;
  readonly ids: StartedRun | null;
  /** The folded run (its `offset` is the resume point). */
  readonly run: RunState;
  connection(): ConnectionInfo;
  setConnection(patch: Partial<ConnectionInfo>): void;
  /** Loads what a batch needs before it can fold (a lazy chunk); null when nothing. */
  prepareBatch(envelopes: Envelope[]): Promise<void> | null;
  /** Folds a batch and publishes it; false when the stream should close (gap, end). */
  applyBatch(envelopes: Envelope[], first: boolean): boolean;
  applySnapshot(snapshot: RunSnapshot): Promise<void>;
  /** The server's own 404: clear the record, show the error. */
  forget(error: ResumableError): Promise<void>;
  fail(error: ResumableError): void;
  /** The run is over (or nothing to follow): rest, flush. */
  settle(): void;
  warn(error: ResumableError): void;
  /** Set after a drop or a reload: the next open counts as a resume. */
  resuming: boolean;
  bytesReceived: number;
}

/**
 * The reconnect loop of one session: open the event stream, fold what arrives, and after
 * anything short of the run's end decide through `errorAction` (retry / snapshot / stop /
 * forget) and wait the retry policy's delay. One loop at a time; `generation` ends a loop
 * (stop, a new run, dispose) without waiting for it.
 */
export class ReconnectLoop {
  private readonly life: LoopLife;
  private abort: AbortController | null = null;
  /** Failed attempts since the offset last moved (network faults excepted). */
  private readonly retries: Retrier;

  constructor(private readonly host: LoopHost) {
    this.life = new LoopLife(host.env);
    const { scope } = host.api;
    this.retries = new Retrier(host.env, host.options, scope && { ...scope, path: 'stream' });
  }

  get active(): boolean {
    return this.life.active;
  }

  /** The current generation: a caller's token for `live` and `sleep`. */
  get token(): number {
    return this.life.token;
  }

  live(generation: number): boolean {
    return this.life.live(generation);
  }

  start(): void {
    if (this.life.active) return;
    this.retries.progressed();
    this.life.start(
      (generation) => this.loop(generation),
      (error, generation) => {
        // A bug, not a network fault: stop visibly instead of leaving a dangling promise.
        if (this.live(generation)) this.host.fail(toResumable(error));
      },
    );
  }

  /** Ends the current loop (and its stream, and its wait) now. */
  stop(): void {
    this.life.stop();
    this.closeStream();
  }

  /** Closes the open stream; the loop decides what follows (offline: park). */
  closeStream(): void {
    this.abort?.abort();
    this.abort = null;
  }

  /** Ends a wait early (online, visible, retry). */
  wakeNow(): void {
    this.life.wakeNow();
  }

  /** Waits `ms` (Infinity: until woken), or until woken, or until the generation ends. */
  sleep(generation: number, ms: number): Promise<void> {
    return this.life.sleep(generation, ms);
  }

  private async loop(generation: number): Promise<void> {
    const host = this.host;
    while (this.live(generation)) {
      const ids = host.ids;
      if (!ids || isTerminalStatus(host.run.status)) return host.settle();
      if (!host.env.online.get()) {
        host.to('offline', { nextRetryAt: null });
        await this.sleep(generation, Number.POSITIVE_INFINITY);
        continue;
      }
      const before = host.run.offset;
      host.to('attempt', { nextRetryAt: null });
      const outcome = await this.connectOnce(generation, ids);
      if (!this.live(generation)) return;
      if (isTerminalStatus(host.run.status)) return host.settle();
      if (!host.env.online.get()) {
        // Dropped because the network went away: park in `offline`, resume on `online`.
        host.resuming = true;
        continue;
      }
      const error = await this.decide(generation, ids, outcome);
      if (error === 'stop' || !this.live(generation)) return;
      if (isTerminalStatus(host.run.status)) return host.settle();
      // A request that got no answer at all (refused, reset) is the network, not a server
      // answering without progress: it is retried at the policy's pace, never given up on.
      const answered = outcome.kind !== 'network';
      if (!(await this.wait(generation, error, host.run.offset > before, answered))) return;
    }
  }

  /**
   * The wait before the next attempt: the retry policy's delay (or `Retry-After`), unless
   * vetoed, exhausted, or without progress for too long (`no_progress`, text kept).
   */
  private async wait(
    generation: number,
    error: ResumableError,
    progressed: boolean,
    answered: boolean,
  ): Promise<boolean> {
    const host = this.host;
    // `decide` acted on the error already: what is left is retried, within the limits. The
    // attempt count is the connection's (a stable stream, `online` and `retry()` reset it).
    const attempt = host.connection().attempt + 1;
    const verdict = this.retries.failed(error, { attempt, answered, progressed, action: 'retry' });
    if (!verdict.retry) {
      host.fail(verdict.error);
      return false;
    }
    const { delay } = verdict;
    host.resuming = true;
    host.to('drop', { attempt, lastError: error, nextRetryAt: host.env.now() + delay });
    await this.sleep(generation, delay);
    return this.live(generation);
  }

  private async connectOnce(generation: number, ids: StartedRun): Promise<StreamOutcome> {
    const host = this.host;
    const controller = new AbortController();
    this.abort = controller;
    let first = true;
    let stableTimer: unknown;
    let headers: Record<string, string>;
    try {
      headers = await host.api.headers(ids.token, { runId: ids.runId, threadId: ids.threadId });
    } catch (error) {
      return { kind: 'network', error: toResumable(error) };
    }
    if (!this.live(generation)) return { kind: 'aborted' };
    const heartbeat = host.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    const after = host.run.offset;
    const outcome = await readEventStream({
      fetch: host.env.fetch,
      url: host.api.eventsUrl(ids.runId, after),
      after,
      headers,
      signal: controller.signal,
      stallMs: heartbeat * 2,
      ...(host.options.maxEventBytes === undefined
        ? {}
        : { maxEventBytes: host.options.maxEventBytes }),
      setTimeout: host.env.setTimeout,
      clearTimeout: host.env.clearTimeout,
      now: host.env.now,
      observe: host.api.scope,
      onOpen: () => {
        const resumed = host.resuming;
        host.resuming = false;
        host.to('open', {
          nextRetryAt: null,
          caughtUp: 0,
          resumes: host.connection().resumes + (resumed ? 1 : 0),
        });
        stableTimer = host.env.setTimeout(() => {
          if (!this.live(generation)) return;
          // A stream that stayed up (heartbeats while the agent thinks) is no stale answer.
          this.retries.progressed();
          host.setConnection({ attempt: 0, lastError: null });
        }, host.options.stableAfterMs ?? DEFAULT_STABLE_AFTER_MS);
      },
      onBytes: (bytes) => {
        host.bytesReceived += bytes;
      },
      onWarning: (warning) => host.warn(warning),
      onBatch: (envelopes) => {
        const apply = () => {
          if (!this.live(generation)) return false;
          const go = host.applyBatch(envelopes, first);
          first = false;
          return go;
        };
        const loading = host.prepareBatch(envelopes);
        return loading === null ? apply() : loading.then(apply);
      },
    });
    if (stableTimer !== undefined) host.env.clearTimeout(stableTimer);
    if (this.abort === controller) this.abort = null;
    return outcome;
  }

  /**
   * What an attempt that ended short of the run's end means: the error to retry on (after
   * a wait), or 'stop'. Decided by `errorAction`, the one table beside the error codes.
   */
  private async decide(
    generation: number,
    ids: StartedRun,
    outcome: StreamOutcome,
  ): Promise<'stop' | ResumableError> {
    switch (outcome.kind) {
      case 'ended':
        return new ResumableError('network', 'the stream closed before the run ended');
      case 'aborted': {
        // Only a gap aborts from inside while the loop is live.
        const last = this.host.connection().lastError;
        return last?.code === 'offset_gap'
          ? last
          : new ResumableError('aborted', 'the stream was closed');
      }
      case 'no_content':
        // Over on the server, and we lack its end: the snapshot has it.
        return this.loadSnapshot(
          generation,
          ids,
          new ResumableError('network', 'the run ended without its end event here'),
        );
      case 'network':
      case 'stalled':
      case 'invalid':
      case 'http':
        return this.act(generation, ids, outcome.error);
    }
  }

  private async act(
    generation: number,
    ids: StartedRun,
    error: ResumableError,
  ): Promise<'stop' | ResumableError> {
    switch (errorAction(error)) {
      case 'snapshot':
        return this.loadSnapshot(generation, ids, error);
      case 'forget':
        await this.host.forget(error);
        return 'stop';
      case 'stop':
        this.host.fail(error);
        return 'stop';
      case 'retry':
        return error;
    }
  }

  /**
   * `GET /runs/:id` replaces the state. Whatever happens, the next attempt waits the
   * policy's delay: a server answering 204/410 forever is not re-asked in a loop.
   */
  private async loadSnapshot(
    generation: number,
    ids: StartedRun,
    why: ResumableError,
  ): Promise<'stop' | ResumableError> {
    let snapshot: RunSnapshot;
    try {
      snapshot = await this.host.api.getRun(ids.runId, ids.token);
    } catch (error) {
      const typed = toResumable(error);
      if (!this.live(generation)) return 'stop';
      return snapshotReadAction(typed) === 'retry' ? typed : this.act(generation, ids, typed);
    }
    if (!this.live(generation)) return 'stop';
    await this.host.applySnapshot(snapshot);
    return why;
  }
}
