import type { Envelope, JsonPatcher, RunSnapshot, RunState } from '@resumable/protocol';
import {
  applyEnvelopesWith,
  createRunState,
  isTerminalStatus,
  needsJsonPatch,
  ResumableError,
  stateFromSnapshot,
} from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { ResumableEnvironment } from '../base/env.js';
import type { ObservedBase } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { RunApi, StartedRun } from '../net/run-api.js';
import { recordOf } from '../records/record-write.js';
import type { RecordWriter } from '../records/record-writer.js';
import type { RunResumeRecord } from '../records/run-record.js';
import { runRecordKey } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import type { ConnectionInfo, ConnectionPhase } from './connection.js';
import { runErrorOf } from './connection.js';
import type { SessionEvent, SessionPhase } from './machine.js';
import { connectionPhaseOf, isStopped, transition } from './machine.js';
import type { RunSessionOptions } from './options.js';
import type { LoopHost } from './reconnect-loop.js';
import type { SessionPublisher } from './session-publisher.js';
import type { RunSessionState } from './session-store.js';

/** JSON Patch support, once a batch needed it (`prepareBatch`). */
let jsonPatch: JsonPatcher | null = null;

export interface FollowedRunParts {
  key: string;
  env: ResumableEnvironment;
  api: RunApi;
  options: RunSessionOptions;
  store: StoreApi<RunSessionState>;
  out: SessionPublisher;
  storage: RecordStorage;
  writer: () => RecordWriter;
  stopLoop: () => void;
  /** Every batch folded from this session's own stream (tab sharing sends it on). */
  onBatch?: (envelopes: Envelope[]) => void;
}

/**
 * A move of a run session's machine (`run/machine.ts`, `observeClient`), with what moved it:
 * the phase before and after, the machine's event, and the error behind it.
 */
export interface ObservedPhase extends ObservedBase {
  /** A move of the run session's machine. */
  readonly type: 'phase';
  /** The run the session follows, or null. */
  readonly runId: string | null;
  /** The phase before the move. */
  readonly from: SessionPhase;
  /** The phase after it (the same as `from` when only the status changed). */
  readonly to: SessionPhase;
  /** `follow`, `attempt`, `open`, `drop`, `offline`, `terminal`, `stop`, `fail`, `park`… */
  readonly event: SessionEvent;
  /** What the connection status shows now (`connection.phase`). */
  readonly connection: ConnectionPhase;
  /** The error behind the move (a drop's, a failure's), or null. */
  readonly error: ResumableError | null;
  /** Attempts in a row (0 when healthy), as the status shows them. */
  readonly attempt: number;
  /** When the next attempt is due (epoch ms), or null. */
  readonly nextRetryAt: number | null;
  /** The resume point at the move. */
  readonly offset: number;
}

/** A run the session follows from now on (`observeClient`). */
export interface ObservedRun extends ObservedBase {
  /** The session follows a run from now on. */
  readonly type: 'run';
  /** The run followed. */
  readonly runId: string;
  /** Its thread. */
  readonly threadId: string;
  /**
   * `started`: this page's `POST /runs`; `joined`: a run going elsewhere (another tab, device,
   * the server); `restored`: the stored record, after a reload.
   */
  readonly how: 'started' | 'joined' | 'restored';
  /** The resume point it starts from (the record's offset when restored, else 0). */
  readonly offset: number;
  /** The run's status as folded so far (a restored run may be over already). */
  readonly status: RunState['status'];
}

/** A batch of a run's events folded (`observeClient`), in order, with the point after it. */
export interface ObservedEvents extends ObservedBase {
  /** A batch of the run's events, as the stream (or the leader tab) delivered it. */
  readonly type: 'events';
  /** The run they are of. */
  readonly runId: string;
  /** The batch as it arrived (read only): each envelope's `offset` and `event`. */
  readonly envelopes: readonly Envelope[];
  /** The first batch after the stream opened: what a resume caught up. */
  readonly first: boolean;
  /** The resume point after the batch. */
  readonly offset: number;
  /** The offsets a gap skipped (the session reconnects from `offset`), or null. */
  readonly gap: { readonly expected: number; readonly received: number } | null;
}

/** The server's snapshot of the run replaced the folded state (`observeClient`). */
export interface ObservedSnapshot extends ObservedBase {
  /** A snapshot of the run was read (a join, or a stream that cannot resume from its offset). */
  readonly type: 'snapshot';
  /** The run it is of. */
  readonly runId: string;
  /** The snapshot's `lastOffset`: the resume point from now on. */
  readonly offset: number;
  /** The run's status in the snapshot. */
  readonly status: RunState['status'];
}

/**
 * The run a session follows and the machine's phase: the state the reconnect loop and
 * the cancel act on (it is the loop's host), and the one place that publishes it to the
 * store and moves the phase (`to`).
 */
export class FollowedRun implements LoopHost {
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly options: RunSessionOptions;
  phase: SessionPhase = 'idle';
  ids: StartedRun | null = null;
  run: RunState = createRunState();
  /** `lastOffset` of the server snapshot `run` was built on (0: from the log's start). */
  base = 0;
  /** Set after a drop or a reload: the next open counts as a resume. */
  resuming = false;
  /** Bytes read on event streams (bench). */
  bytesReceived = 0;

  constructor(private readonly parts: FollowedRunParts) {
    this.env = parts.env;
    this.api = parts.api;
    this.options = parts.options;
  }

  private get store(): StoreApi<RunSessionState> {
    return this.parts.store;
  }

  private get writer(): RecordWriter {
    return this.parts.writer();
  }

  connection(): ConnectionInfo {
    return this.store.getState().connection;
  }

  /**
   * Moves the phase (through `transition`, the only way it moves) and publishes the
   * derived connection status. A batch or snapshot that ends the run moves it with
   * `transition` too, publishing it with the run in the batch's one store update.
   */
  to(event: SessionEvent, patch: Partial<ConnectionInfo> = {}): void {
    const from = this.phase;
    const shown = this.connection().phase;
    this.phase = transition(this.phase, event);
    this.setConnection({
      ...patch,
      phase: connectionPhaseOf(this.phase, this.run.status, this.isResuming(patch)),
    });
    // A move that changes nothing shown and brings no error (a settle of an ended run) is
    // not one: the observers hear moves, not calls.
    const error = patch.lastError ?? null;
    const moved = from !== this.phase || shown !== this.connection().phase || error !== null;
    if (moved && observed()) this.tellPhase(from, event, error);
  }

  /** Moves the phase where the caller publishes it with the run (a batch, a snapshot). */
  private move(event: SessionEvent): SessionPhase {
    const from = this.phase;
    this.phase = transition(this.phase, event);
    return from;
  }

  private tellPhase(from: SessionPhase, event: SessionEvent, error: ResumableError | null) {
    const { api, ids, phase, run } = this;
    if (!api.scope) return;
    const { attempt, nextRetryAt, phase: connection } = this.connection();
    notify<ObservedPhase>({
      type: 'phase',
      ...api.scope,
      runId: ids?.runId ?? null,
      from,
      to: phase,
      event,
      connection,
      error,
      attempt,
      nextRetryAt,
      offset: run.offset,
    });
  }

  /** Tells the observers the run followed from now on. */
  tellRun(how: ObservedRun['how']): void {
    const { api, ids, run } = this;
    if (!api.scope || !ids || !observed()) return;
    const { runId, threadId } = ids;
    const { offset, status } = run;
    notify<ObservedRun>({ type: 'run', ...api.scope, runId, threadId, how, offset, status });
  }

  /**
   * What a batch needs loaded before it folds: JSON Patch support (a lazy chunk, out of the
   * first paint) the first time a STATE_DELTA or ACTIVITY_DELTA arrives; null when nothing.
   */
  prepareBatch(envelopes: Envelope[]): Promise<void> | null {
    if (jsonPatch !== null || !needsJsonPatch(envelopes)) return null;
    return import('@resumable/protocol/patch').then((m) => {
      jsonPatch = m.applyJsonPatch;
    });
  }

  applyBatch(envelopes: Envelope[], first: boolean): boolean {
    const result = applyEnvelopesWith(this.run, envelopes, jsonPatch);
    if (result.state !== this.run) {
      this.parts.out.noteFoldWarnings(this.run, result.state);
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
    const from = terminal ? this.move('terminal') : null;
    if (terminal) Object.assign(patch, { attempt: 0, nextRetryAt: null, lastError: null });
    this.publish(this.run, patch, terminal ? { error: runErrorOf(this.run) } : {});
    if (observed()) this.tellBatch(envelopes, first, result.gap, from);
    this.parts.onBatch?.(envelopes);
    this.writer.schedule();
    if (terminal) void this.writer.flush();
    // A gap: close and reconnect from the resume point, which the fold kept exact.
    return result.gap === null && !terminal;
  }

  private tellBatch(
    envelopes: readonly Envelope[],
    first: boolean,
    gap: ObservedEvents['gap'],
    from: SessionPhase | null,
  ): void {
    const { api, ids, run } = this;
    if (!api.scope || !ids) return;
    const { runId } = ids;
    const { offset } = run;
    notify<ObservedEvents>({ type: 'events', ...api.scope, runId, envelopes, first, offset, gap });
    if (from !== null) this.tellPhase(from, 'terminal', null);
  }

  async applySnapshot(snapshot: RunSnapshot): Promise<void> {
    this.run = stateFromSnapshot(snapshot);
    this.base = this.run.offset;
    this.resuming = true;
    const terminal = isTerminalStatus(this.run.status);
    const from = terminal ? this.move('terminal') : null;
    this.publish(
      this.run,
      terminal ? { nextRetryAt: null } : {},
      terminal ? { error: runErrorOf(this.run) } : {},
    );
    if (this.api.scope && observed()) {
      const { offset, status } = this.run;
      const { runId } = snapshot;
      notify<ObservedSnapshot>({ type: 'snapshot', ...this.api.scope, runId, offset, status });
      if (from !== null) this.tellPhase(from, 'terminal', null);
    }
    // The server's word replaces the stored record even at a lower offset (a 409's record
    // was ahead of its log); an ordinary write could never move it back.
    this.writer.replace();
    await this.writer.flush();
  }

  /** The server's own 404: it no longer knows the run. Clear the record and say so. */
  async forget(error: ResumableError): Promise<void> {
    this.warn(error);
    this.writer.cancel();
    this.parts.stopLoop();
    this.fail(error);
    await this.writer.idle();
    await this.parts.storage.delete(runRecordKey(this.parts.key)).catch(() => {});
  }

  fail(error: ResumableError): void {
    this.store.setState({ error });
    this.to('fail', { lastError: error, nextRetryAt: null });
  }

  /** The loop ended with nothing (more) to follow: rest in `ended`, or `idle`. */
  settle(): void {
    this.to(isTerminalStatus(this.run.status) ? 'terminal' : 'park', {
      nextRetryAt: null,
      attempt: 0,
    });
    void this.writer.flush();
  }

  adopt(ids: StartedRun, run: RunState, how: 'started' | 'joined'): void {
    this.ids = { runId: ids.runId, threadId: ids.threadId, token: ids.token };
    this.run = run;
    this.base = 0;
    this.resuming = false;
    const from = this.move('follow');
    this.publish(
      run,
      { attempt: 0, nextRetryAt: null, lastError: null, caughtUp: 0, resumes: 0 },
      { runId: ids.runId, threadId: ids.threadId, error: null, stopped: false },
    );
    if (observed()) {
      this.tellRun(how);
      this.tellPhase(from, 'follow', null);
    }
    // Written by the caller's flush (start, attach) before any event is applied.
    this.writer.touch();
  }

  produceRecord(): RunResumeRecord | null {
    if (!this.ids) return null;
    const record = recordOf(this.parts.key, this.run, this.ids, this.env.now(), this.base);
    if (isStopped(this.phase) || this.store.getState().stopped) record.stopped = true;
    return record;
  }

  /** Storage may have fallen back to memory: the status says what is really used. */
  notePersistence(): void {
    this.setConnection({ persistence: this.parts.storage.kind });
  }

  /**
   * One store update per batch: the run, its messages and the connection together. The
   * connection object stays the same unless a fact other than the offset changed.
   */
  publish(
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
      connection: this.parts.out.nextConnection({
        ...connection,
        phase: connectionPhaseOf(this.phase, run.status, this.isResuming(connection)),
        persistence: this.parts.storage.kind,
      }),
    });
  }

  private isResuming(patch: Partial<ConnectionInfo>): boolean {
    return this.resuming || (patch.attempt ?? this.store.getState().connection.attempt) > 0;
  }

  setConnection(patch: Partial<ConnectionInfo>): void {
    this.parts.out.setConnection(patch);
  }

  warn(warning: ResumableError): void {
    this.parts.out.warn(warning);
  }
}
