import type { Envelope, RunSnapshot } from '@resumable/protocol';
import { isTerminalStatus, snapshotOf } from '@resumable/protocol';
import { FRESH_SNAPSHOT_MS } from '../base/defaults.js';
import type { ObservedBase } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { RecordWriter } from '../records/record-writer.js';
import type { ConnectionInfo } from './connection.js';
import type { FollowedRun } from './followed-run.js';

/**
 * Who opens a session's stream when tabs share a conversation (`tabs/leader-election.ts`
 * decides): `solo`/`leader` this tab, `follower` another tab, `pending` nobody yet.
 */
export type StreamRole = 'solo' | 'leader' | 'follower' | 'pending';

/**
 * Who holds a conversation's streams now (`observeClient`): this tab (`solo`, `leader`),
 * another tab (`follower`: its events arrive from there), or nobody yet (`pending`).
 */
export interface ObservedRole extends ObservedBase {
  /** This tab's part in reading the conversation's stream changed. */
  readonly type: 'role';
  /** The role now. */
  readonly role: StreamRole;
  /** The role before. */
  readonly from: StreamRole;
}

export interface SharedStreamParts {
  followed: FollowedRun;
  writer: RecordWriter;
  stopLoop(): void;
  setConnection(patch: Partial<ConnectionInfo>): void;
}

export class SharedStream {
  /**
   * `solo`/`leader`: this session opens its stream and writes its record. `follower`:
   * another tab does, and its batches arrive through `apply`. `pending`: nobody yet (the
   * election is on).
   */
  role: StreamRole = 'solo';
  private readonly listeners = new Set<(runId: string, envelopes: Envelope[]) => void>();
  /** The last snapshot read to check an announced run (`keepFresh`), for its join. */
  private fresh: { snapshot: RunSnapshot; at: number } | null = null;

  constructor(private readonly parts: SharedStreamParts) {}

  get ownsStream(): boolean {
    return this.role === 'solo' || this.role === 'leader';
  }

  /** Calls `listener` with every batch this session folds. */
  onBatch(listener: (runId: string, envelopes: Envelope[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(envelopes: Envelope[]): void {
    const runId = this.parts.followed.ids?.runId;
    if (runId) for (const listener of this.listeners) listener(runId, envelopes);
  }

  /**
   * A new leader first writes what it has (it wrote nothing while following); it resumes
   * from its own resume point when its conversation says so (`RunSession.resume`: not while
   * a join's snapshot loads). A follower stops its stream.
   */
  setRole(role: StreamRole): void {
    if (role === this.role) return;
    this.tellRole(role);
    this.role = role;
    this.parts.setConnection({ viaTab: role === 'follower' });
    if (this.ownsStream) {
      this.parts.writer.touch();
      void this.parts.writer.flush();
      return;
    }
    this.parts.stopLoop();
    this.follow();
  }

  /**
   * A run's snapshot this tab just read from the server (`knownRun`'s check of an announced
   * run): the join that follows takes it instead of reading it again (one kept, the last).
   */
  keepFresh(snapshot: RunSnapshot): void {
    this.fresh = { snapshot, at: this.parts.followed.env.now() };
  }

  /** `GET /runs/{id}` for a join: the kept snapshot when it is this run's and fresh (once). */
  readSnapshot(runId: string, token: string | null): Promise<RunSnapshot> {
    const { fresh } = this;
    this.fresh = null;
    const { followed } = this.parts;
    if (fresh?.snapshot.runId === runId && followed.env.now() - fresh.at <= FRESH_SNAPSHOT_MS) {
      return Promise.resolve(fresh.snapshot);
    }
    return followed.api.getRun(runId, token);
  }

  /**
   * The tab is closing the conversation (its chat let go): back to `solo` without writing or
   * opening anything — a follower's state is the leader's to store.
   */
  release(): void {
    if (this.role === 'solo') return;
    this.tellRole('solo');
    this.role = 'solo';
    this.parts.setConnection({ viaTab: false });
  }

  private tellRole(role: StreamRole): void {
    const { scope } = this.parts.followed.api;
    if (!scope || !observed()) return;
    notify<ObservedRole>({ type: 'role', ...scope, role, from: this.role });
  }

  /** A follower's run is live through the leader's batches: the phase says `streaming`. */
  follow(): void {
    const { followed } = this.parts;
    if (this.role !== 'follower' || !followed.ids || isTerminalStatus(followed.run.status)) return;
    if (
      followed.phase === 'connecting' ||
      followed.phase === 'waiting' ||
      followed.phase === 'offline' ||
      followed.phase === 'idle'
    ) {
      followed.to('attempt');
      followed.to('open', { attempt: 0, nextRetryAt: null, lastError: null });
    }
  }

  /** The run this session follows and its resume point (null: none). */
  get point(): { runId: string; token: string | null; offset: number; base: number } | null {
    const { followed } = this.parts;
    if (!followed.ids) return null;
    return {
      runId: followed.ids.runId,
      token: followed.ids.token,
      offset: followed.run.offset,
      base: followed.base,
    };
  }

  /**
   * Another tab's batch of a run, which continues the resume point (`tab-run-point.ts` says
   * when): what is at or below it is dropped by the fold. `gap` when the fold found one.
   */
  apply(runId: string, envelopes: Envelope[]): 'applied' | 'gap' | 'other' {
    const { followed } = this.parts;
    if (followed.ids?.runId !== runId || isTerminalStatus(followed.run.status)) return 'other';
    const next = envelopes.find((e) => e.offset > followed.run.offset);
    if (!next) return 'applied';
    if (next.offset !== followed.run.offset + 1) return 'gap';
    const go = followed.applyBatch(envelopes, false);
    return go || isTerminalStatus(followed.run.status) ? 'applied' : 'gap';
  }

  /**
   * The server's snapshot of the run, read by a follower whose point another tab's batch
   * could not continue: taken when it is ahead, or — `replace`: two tabs disagreed about
   * the same offsets — whatever its offset, as the server's word. A run another tab's batch
   * ended that the server says goes on is followed again.
   */
  async takeSnapshot(snapshot: RunSnapshot, replace: boolean): Promise<void> {
    const { followed } = this.parts;
    if (followed.ids?.runId !== snapshot.runId) return;
    if (!replace && snapshot.lastOffset <= followed.run.offset) return;
    await followed.applySnapshot(snapshot);
    if (followed.ids?.runId !== snapshot.runId || isTerminalStatus(followed.run.status)) return;
    if (followed.phase === 'ended') followed.to('follow');
    this.follow();
  }

  /** This session's folded run as a snapshot (what the leader answers a `sync` with). */
  snapshot(): RunSnapshot | null {
    const { followed } = this.parts;
    if (!followed.ids) return null;
    const snapshot = snapshotOf(followed.run);
    snapshot.runId = followed.ids.runId;
    snapshot.threadId = followed.ids.threadId;
    return snapshot;
  }
}
