import type { Envelope } from '@resumable/protocol';
import { errorAction, ResumableError } from '@resumable/protocol';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_STABLE_AFTER_MS } from '../base/defaults.js';
import type { ResumableEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import { readEventStream } from '../net/event-stream.js';
import type { RunApi } from '../net/run-api.js';
import type { RecordStorage } from '../records/storage.js';
import { LoopLife } from '../retry/loop-life.js';
import { Retrier } from '../retry/retrier.js';
import type { LoopOptions } from '../run/reconnect-loop.js';
import { SharedPoint } from '../tabs/shared-point.js';

/** What `thread:<key>` holds: the thread stream's resume point. */
export interface ThreadResumeRecord {
  v: 1;
  key: string;
  threadId: string;
  offset: number;
}

export const threadRecordKey = (key: string) => `thread:${key}`;

const isOffset = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** The record for `key` and `threadId`, or null for anything else (another thread, garbage). */
export function parseThreadRecord(value: unknown, key: string, threadId: string): number | null {
  const r = value as Partial<ThreadResumeRecord> | null;
  if (typeof r !== 'object' || r === null || r.v !== 1 || r.key !== key) return null;
  return r.threadId === threadId && isOffset(r.offset) ? r.offset : null;
}

export interface ThreadFollowerParts {
  key: string;
  env: ResumableEnvironment;
  api: RunApi;
  storage: RecordStorage;
  options: LoopOptions;
  /** New events, in order, each applied once (network or another tab's batch alike). */
  onEvents(envelopes: Envelope[]): void;
  /** The resume point jumped to the server's `lastOffset` (410/409): look at the thread again. */
  onResync(): void;
  warn(error: ResumableError): void;
  /** Only the leader tab (or a tab on its own) persists the resume point. */
  canWrite(): boolean;
}

/**
 * Follows `GET /threads/{id}/events` like a run: resume point kept (and persisted), the one
 * retry executor (`Retrier`) and decision table (`errorAction`); a 410 or 409 takes
 * `GET /threads/{id}`'s `lastOffset` and continues from it. A thread stream has no end of
 * its own: it is followed until `stop()`, a `stop`/`forget` answer (401, 403, 404), or
 * `maxAttemptsWithoutProgress` answers that never opened a stream.
 */
export class ThreadFollower {
  threadId: string | null = null;
  token: string | null = null;
  /** The resume point; null until read from the record or the server. */
  offset: number | null = null;
  bytesReceived = 0;
  /** The loop's life, shared with the run's reconnect loop (`loop-life.ts`). */
  private readonly life: LoopLife;
  private abort: AbortController | null = null;
  private loaded: Promise<void> | null = null;
  private writes: Promise<void> = Promise.resolve();
  /** The point against other tabs' batches, while this tab follows the leader's. */
  private readonly shared: SharedPoint;

  constructor(private readonly parts: ThreadFollowerParts) {
    this.life = new LoopLife(parts.env);
    const { backoff, maxAttemptsWithoutProgress } = parts.options;
    this.shared = new SharedPoint({
      env: parts.env,
      backoff,
      maxAttemptsWithoutProgress,
      point: () => this.offset,
      fold: (envelopes) => {
        // The first batch a follower sees sets its point; any later disagreement is checked.
        if (this.offset === null) this.offset = (envelopes[0] as Envelope).offset - 1;
        return this.applyBatch(envelopes);
      },
      check: (disputed) => this.check(disputed),
    });
  }

  get active(): boolean {
    return this.life.active;
  }

  /**
   * Points at a thread (a new one resets the resume point); true when it changed. A new
   * token stops the loop too (it may have been refused without one): the caller restarts.
   */
  setThread(threadId: string | null, token: string | null): boolean {
    if (token !== this.token) this.stop();
    this.token = token;
    if (threadId === this.threadId) return false;
    this.stop();
    this.threadId = threadId;
    this.offset = null;
    this.loaded = null;
    this.shared.reset();
    return true;
  }

  /** Reads the persisted resume point once per thread. */
  load(): Promise<void> {
    const threadId = this.threadId;
    if (threadId === null) return Promise.resolve();
    this.loaded ??= this.parts.storage
      .get(threadRecordKey(this.parts.key))
      .then((raw) => {
        const offset = parseThreadRecord(raw, this.parts.key, threadId);
        if (this.threadId !== threadId || offset === null) return;
        // Stored by a tab whose own stream read it.
        this.shared.confirm(offset);
        this.offset ??= offset;
      })
      .catch(() => {});
    return this.loaded;
  }

  /**
   * Applies a batch in offset order: what is at or below the resume point is dropped (a
   * redelivery), a gap stops the batch (false: reconnect from the resume point).
   */
  applyBatch(envelopes: readonly Envelope[]): boolean {
    if (this.offset === null) return false;
    const fresh: Envelope[] = [];
    let gap = false;
    for (const envelope of envelopes) {
      if (envelope.offset <= this.offset) continue;
      if (envelope.offset !== this.offset + 1) {
        gap = true;
        break;
      }
      this.offset = envelope.offset;
      fresh.push(envelope);
    }
    if (fresh.length > 0) {
      this.parts.onEvents(fresh);
      this.persist();
    }
    return !gap;
  }

  /**
   * The leader tab's thread batch, in a follower: folded where it continues this tab's
   * point; one that skips ahead, or tells another story about offsets this tab has folded
   * (another tab made them up), is settled with the server (`shared-point.ts`). A follower
   * with no point yet (none stored) starts at its first batch (the runs announced before are
   * joined through the leader's `lead` message or `GET /threads/{id}`).
   */
  applyShared(envelopes: Envelope[]): void {
    // The stored point first (written by a tab whose own stream read it), in arrival order.
    const threadId = this.threadId;
    if (this.offset === null && threadId !== null) {
      // Another thread meanwhile (the chat switched): the batch is not this one's.
      void this.load().then(() => this.threadId === threadId && this.shared.offer(envelopes));
    } else this.shared.offer(envelopes);
  }

  /**
   * `GET /threads/{id}`'s `lastOffset`, in a follower another tab's batch did not fit: the
   * point becomes the server's, and what the chat shows is rebuilt from the server when
   * the point moved or two tabs disagreed (a `run_started`, a rename it missed).
   */
  private async check(disputed: boolean): Promise<number | null> {
    const threadId = this.threadId;
    if (threadId === null || this.life.active) return null;
    const lastOffset = await this.serverOffset();
    if (this.threadId !== threadId || this.life.active || lastOffset === null) return null;
    const before = this.offset;
    this.offset = lastOffset;
    if (disputed || lastOffset !== before) this.parts.onResync();
    return lastOffset;
  }

  /**
   * Writes the resume point (serialized; only the leader or a lone tab). Monotonic like a
   * run record — except `serverWord`: the point a 409/410 resync took from the server
   * replaces a higher stored one, which is ahead of the server (another tab's batch, events
   * a dying server never stored) and would answer 409 on every reload after.
   */
  persist(serverWord = false): void {
    const { threadId, offset } = this;
    if (threadId === null || offset === null || !this.parts.canWrite()) return;
    const record: ThreadResumeRecord = { v: 1, key: this.parts.key, threadId, offset };
    const key = threadRecordKey(this.parts.key);
    this.writes = this.writes
      .then(() =>
        this.parts.storage.update(key, (old) => {
          const prev = parseThreadRecord(old, this.parts.key, threadId);
          return !serverWord && prev !== null && prev > offset ? old : record;
        }),
      )
      .catch(() => {});
  }

  /** The thread is gone: stops, and deletes the resume point (after any write in flight). */
  forget(): void {
    this.stop();
    this.threadId = null;
    this.offset = null;
    this.loaded = null;
    this.shared.reset();
    const key = threadRecordKey(this.parts.key);
    this.writes = this.writes.then(() => this.parts.storage.delete(key)).catch(() => {});
  }

  start(): void {
    if (this.life.active || this.threadId === null) return;
    this.shared.cancel();
    this.life.start(
      (generation) => this.loop(generation),
      (error) => this.parts.warn(toResumable(error)),
    );
  }

  stop(): void {
    this.life.stop();
    this.shared.cancel();
    this.abort?.abort();
    this.abort = null;
  }

  wakeNow(): void {
    this.life.wakeNow();
  }

  private live(generation: number): boolean {
    return this.life.live(generation);
  }

  private sleep(generation: number, ms: number): Promise<void> {
    return this.life.sleep(generation, ms);
  }

  private async loop(generation: number): Promise<void> {
    const { env, options } = this.parts;
    // The session's policy and its bound on answers without progress; a thread stream has no
    // `maxRetries`: it is followed for as long as the chat is.
    const { backoff, maxAttemptsWithoutProgress } = options;
    const retries = new Retrier(env, { backoff, maxAttemptsWithoutProgress });
    let resync = false;
    await this.load();
    while (this.live(generation)) {
      if (!env.online.get()) {
        const off = env.online.subscribe((online) => online && this.wakeNow());
        await this.sleep(generation, Number.POSITIVE_INFINITY);
        off();
        continue;
      }
      let error: ResumableError;
      let openedAt: number | null = null;
      // A stream that closed (200 or 204) is an answer: only a request that got none is `network`.
      let answered = true;
      const before = this.offset;
      try {
        if (this.offset === null) {
          const lastOffset = await this.serverOffset();
          if (!this.live(generation)) return;
          if (lastOffset === null) {
            // A server from before thread streams: the chat goes on without one.
            this.parts.warn(
              new ResumableError('unexpected_response', 'GET /threads/{id} has no lastOffset'),
            );
            this.life.end(generation);
            return;
          }
          this.offset = lastOffset;
          this.shared.confirm(lastOffset);
          this.persist(resync);
          if (resync) this.parts.onResync();
          resync = false;
        }
        const result = await this.connectOnce(generation, () => {
          openedAt = env.now();
        });
        if (!this.live(generation)) return;
        [error, answered] = result;
      } catch (caught) {
        error = toResumable(caught);
        answered = error.code !== 'network';
      }
      if (!this.live(generation)) return;
      const action = errorAction(error);
      if (action === 'stop' || action === 'forget') {
        // 401/403/404 or a server without thread streams: the chat goes on without it.
        this.parts.warn(error);
        this.life.end(generation);
        return;
      }
      if (action === 'snapshot') {
        this.offset = null;
        resync = true;
      }
      // Progress is a new offset, or a stream that stayed up (heartbeats on a quiet thread):
      // a server that opens and closes at once, or answers 204, forever ends in `no_progress`.
      const stable =
        openedAt !== null &&
        env.now() - openedAt >= (options.stableAfterMs ?? DEFAULT_STABLE_AFTER_MS);
      const progressed = stable || this.offset !== before;
      const attempt = progressed ? 1 : undefined;
      const verdict = retries.failed(error, { attempt, answered, progressed, action: 'retry' });
      if (!verdict.retry) {
        this.parts.warn(verdict.error);
        this.life.end(generation);
        return;
      }
      await this.sleep(generation, verdict.delay);
    }
  }

  /**
   * `GET /threads/{id}`'s `lastOffset`: where a client with nothing to resume starts (and
   * what a follower's watch over its leader compares with, `leader-watch.ts`); null when
   * the answer has none (a server without thread streams).
   */
  async serverOffset(): Promise<number | null> {
    const threadId = this.threadId as string;
    // Aborted by `stop()` like the stream: a stopped follower leaves no request behind.
    const controller = new AbortController();
    this.abort = controller;
    const body = await this.parts.api
      .threadBody(threadId, this.token, controller.signal)
      .finally(() => {
        if (this.abort === controller) this.abort = null;
      });
    const lastOffset = body?.lastOffset;
    if (lastOffset === undefined) return null;
    if (!isOffset(lastOffset)) {
      throw new ResumableError('bad_snapshot', 'GET /threads/{id}: lastOffset is not an offset');
    }
    return lastOffset;
  }

  /**
   * One attempt; resolves with why it ended (a stream closing is a `network` drop) and
   * whether the server answered at all.
   */
  private async connectOnce(
    generation: number,
    onOpen: () => void,
  ): Promise<[ResumableError, boolean]> {
    const { api, env, options } = this.parts;
    const threadId = this.threadId as string;
    const headers = await api.headers(this.token, { threadId });
    if (!this.live(generation)) return [new ResumableError('aborted', 'stopped'), true];
    const controller = new AbortController();
    this.abort = controller;
    const after = this.offset ?? 0;
    const outcome = await readEventStream({
      fetch: api.fetch,
      url: `${api.endpoint}/threads/${encodeURIComponent(threadId)}/events?after=${after}`,
      after,
      headers,
      signal: controller.signal,
      stallMs: (options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS) * 2,
      ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
      setTimeout: env.setTimeout,
      clearTimeout: env.clearTimeout,
      now: env.now,
      onOpen,
      onBytes: (bytes) => {
        this.bytesReceived += bytes;
      },
      onWarning: (warning) => this.parts.warn(warning),
      onBatch: (envelopes) => {
        if (!this.live(generation)) return false;
        const go = this.applyBatch(envelopes);
        if (this.offset !== null) this.shared.confirm(this.offset);
        return go;
      },
    });
    if (this.abort === controller) this.abort = null;
    switch (outcome.kind) {
      case 'ended':
      case 'no_content':
        return [new ResumableError('network', 'the thread stream closed'), true];
      case 'aborted':
        return [new ResumableError('aborted', 'the thread stream was closed'), true];
      default:
        return [outcome.error, outcome.kind !== 'network'];
    }
  }
}
