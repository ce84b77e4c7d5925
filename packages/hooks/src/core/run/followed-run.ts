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
import type { RunApi, StartedRun } from '../net/run-api.js';
import { recordOf } from '../records/record-write.js';
import type { RecordWriter } from '../records/record-writer.js';
import type { RunResumeRecord } from '../records/run-record.js';
import { runRecordKey } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import type { ConnectionInfo } from './connection.js';
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
    this.phase = transition(this.phase, event);
    this.setConnection({
      ...patch,
      phase: connectionPhaseOf(this.phase, this.run.status, this.isResuming(patch)),
    });
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
    if (terminal) {
      this.phase = transition(this.phase, 'terminal');
      Object.assign(patch, { attempt: 0, nextRetryAt: null, lastError: null });
    }
    this.publish(this.run, patch, terminal ? { error: runErrorOf(this.run) } : {});
    this.parts.onBatch?.(envelopes);
    this.writer.schedule();
    if (terminal) void this.writer.flush();
    // A gap: close and reconnect from the resume point, which the fold kept exact.
    return result.gap === null && !terminal;
  }

  async applySnapshot(snapshot: RunSnapshot): Promise<void> {
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

  adopt(ids: StartedRun, run: RunState): void {
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
