import type { Message } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import type { ChainableCommander, RedisOptions } from 'ioredis';
import { DEFAULTS } from '../../defaults.js';
import type {
  EventStore,
  FileStore,
  InterruptLedger,
  MessagePage,
  NewRun,
  RunEnd,
  RunRecord,
  SharedCounters,
  StoredEvent,
  ThreadEdits,
  ThreadLogStore,
  ThreadRecord,
} from '../types.js';
import { AppendConflictError, runInProgress, runNotFound, threadNotFound } from '../types.js';
import {
  connectionUp,
  openClient,
  quit,
  type RedisClient,
  subscribeWithRetry,
  unavailable,
  unreachable,
  whenReady,
} from './connection.js';
import { RedisCounters } from './counters.js';
import { RedisInterruptLedger } from './interrupts.js';
import { entryId, offsetOf, RedisKeys, runMember } from './keys.js';
import { LiveTails, livePayload } from './live.js';
import { type RedisStoreOptions, type RedisTarget, targetOf } from './options.js';
import { messagePage, THREAD_FIELDS, threadOf, toRecord } from './records.js';
import { RunIndex } from './run-index.js';
import { SCRIPTS, type ScriptCommands } from './scripts.js';
import { findOrphanedRuns, pruneEvents } from './sweeps.js';
import { RedisThreadLog } from './thread-log.js';
import { RedisFiles, RedisThreadEdits } from './threads.js';

export type { RedisStoreOptions };

/** A connection with the store's scripts as methods (`defineCommand`). */
export type Client = RedisClient & ScriptCommands;
type Pipeline = ChainableCommander & ScriptCommands;

/** What `durableAppends` resolves to. */
interface Durability {
  replicas: number;
  timeoutMs: number;
  connections: number;
}

/**
 * Runs in Redis, shared by any number of server instances: every event in a Redis Stream
 * per run (entry id = offset, so offsets stay 1..N and any instance serves any offset),
 * run records and thread history in hashes and sorted sets, conditional appends in Lua
 * (atomic: one terminal event even when instances race), ownership leases (`SET NX PX`)
 * whose lapse marks a run orphaned, live tails through sharded pub/sub, and cancel
 * requests through pub/sub. On one Redis or a Redis Cluster: every key of a thread is in
 * the thread's slot (keys.ts), so every script is atomic on either.
 *
 * Connections fail fast: no offline queue, no retried requests. While Redis is away
 * every operation throws `ResumableError('store_unavailable')` (HTTP 503) within
 * `connectWaitMs`, nothing is half-written (each write is one script), and ioredis
 * reconnects on its own when Redis is back.
 */
export class RedisStore implements EventStore {
  /** Always `redis` (one Redis or a cluster). */
  readonly kind = 'redis';
  /** True: any number of server instances may share it. */
  readonly shared = true;
  /**
   * Where everything is kept, key by key: for the store's parts (threads, files, sweeps).
   * @internal
   */
  readonly keys: RedisKeys;
  /** {@inheritDoc EventStore.interrupts} */
  readonly interrupts: InterruptLedger;
  /** {@inheritDoc EventStore.counters} */
  readonly counters: SharedCounters;
  /**
   * Where runs are found from their id (`runthread:<R>`).
   * @internal
   */
  readonly runs: RunIndex;
  private readonly client: Client;
  private readonly target: RedisTarget;
  /** How the store is named in messages (no credentials). */
  private readonly label: string;
  private readonly connection: RedisOptions;
  private readonly maxReconnectDelayMs: number;
  private readonly clusterOptions: RedisStoreOptions['clusterOptions'];
  private readonly eventsTtlMs: number;
  private readonly leaseMs: number;
  private readonly connectWaitMs: number;
  private readonly tailCheckMs: number;
  private readonly durability: Durability | null;
  private readonly log: (message: string) => void;
  private readonly waits = new WeakMap<RedisClient, Promise<void>>();
  private readonly cancelListeners = new Set<(runId: string) => void>();
  /**
   * Commands this store has sent (a pipeline counts each of its commands; ioredis' own,
   * such as a cluster's slot refreshes, are not counted): what capacity planning needs.
   */
  readonly stats = { commands: 0 };
  private subscriber: RedisClient | null = null;
  /** The connections of durable appends (`durableAppends.connections`), made when first needed. */
  private readonly appendClients: Client[] = [];
  private tails: LiveTails | null = null;
  private closed = false;
  /** {@inheritDoc EventStore.threadLog} */
  readonly threadLog: ThreadLogStore = new RedisThreadLog(this); // protocol.md, "Thread event stream"
  /** {@inheritDoc EventStore.threadEdits} */
  readonly threadEdits: ThreadEdits = new RedisThreadEdits(this);
  /** {@inheritDoc EventStore.files} */
  readonly files: FileStore = new RedisFiles(this);

  /**
   * Connects at once, in the background: nothing waits for Redis here. Until it answers,
   * each operation fails with `store_unavailable` after `connectWaitMs`. Throws a
   * `RangeError` for a `cluster` or `redis+cluster://` URL without a valid seed node.
   */
  constructor(options: RedisStoreOptions = {}) {
    this.target = targetOf(options);
    this.label = this.target.kind === 'single' ? this.target.url : this.target.label;
    this.keys = new RedisKeys(options.prefix ?? DEFAULTS.redis.prefix);
    this.eventsTtlMs = Math.max(1, Math.round(options.eventsTtlMs ?? DEFAULTS.redis.eventsTtlMs));
    this.leaseMs = options.leaseMs ?? DEFAULTS.redis.leaseMs;
    this.connectWaitMs = options.connectWaitMs ?? DEFAULTS.redis.connectWaitMs;
    this.tailCheckMs = options.tailCheckMs ?? DEFAULTS.redis.tailCheckMs;
    this.log = options.log ?? ((message) => console.warn(`[resumable] ${message}`));
    this.maxReconnectDelayMs = options.maxReconnectDelayMs ?? DEFAULTS.redis.maxReconnectDelayMs;
    this.clusterOptions = options.clusterOptions;
    const durable = options.durableAppends ?? (this.target.kind === 'cluster' ? {} : false);
    this.durability =
      durable === false
        ? null
        : {
            replicas: durable.replicas ?? DEFAULTS.redis.durableAppends.replicas,
            timeoutMs: durable.timeoutMs ?? DEFAULTS.redis.durableAppends.timeoutMs,
            connections: Math.max(
              1,
              Math.floor(durable.connections ?? DEFAULTS.redis.durableAppends.connections),
            ),
          };
    this.connection = {
      ...options.redisOptions,
      // RESP2 keeps the reply shapes of XRANGE/HGETALL stable and simple.
      protocol: 2,
      // Fail fast: a request while Redis is away answers 503 instead of waiting in a
      // queue, and a command in flight when the connection drops is never re-sent
      // behind the caller's back (the caller already got an error and may retry).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.commandTimeoutMs ?? DEFAULTS.redis.commandTimeoutMs,
    };
    this.client = this.connect('main') as Client;
    for (const [name, definition] of Object.entries(SCRIPTS)) {
      this.client.defineCommand(name, definition);
    }
    // Connected now, so the first durable append does not wait for them.
    if (this.durability) this.appendClient('');
    const call = <T>(what: string, op: (client: RedisClient) => Promise<T>) => this.call(what, op);
    this.interrupts = new RedisInterruptLedger(this.keys, call);
    this.counters = new RedisCounters(this.keys, call);
    this.runs = new RunIndex(this.keys, call);
  }

  // ---- threads -------------------------------------------------------------------------

  /** {@inheritDoc EventStore.createThread} */
  async createThread(thread: ThreadRecord): Promise<boolean> {
    const reply = await this.call('createThread', (c) =>
      c.rsCreateThread(
        this.keys.thread(thread.threadId),
        this.keys.deleted(thread.threadId),
        thread.token,
        thread.createdAt,
        thread.firstRunId ?? '',
      ),
    );
    return reply === 1;
  }

  /** {@inheritDoc EventStore.getThread} */
  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const key = this.keys.thread(threadId);
    return threadOf(threadId, await this.call('getThread', (c) => c.hmget(key, ...THREAD_FIELDS)));
  }

  // ---- runs ------------------------------------------------------------------------------

  /** {@inheritDoc EventStore.createRun} */
  async createRun(run: NewRun): Promise<{ created: boolean; run: RunRecord }> {
    const k = this.keys;
    const { runId, threadId } = run;
    const owner = await this.runs.claim(runId, threadId);
    if (owner !== threadId) {
      // The id is another thread's: its run is the answer (the caller refuses it for
      // this thread), or it never got a run (a POST that failed there).
      const existing = await this.getRunOf(owner, runId);
      if (existing) return { created: false, run: existing };
      throw new ResumableError('bad_request', `runId ${runId} belongs to another thread`);
    }
    // Listed for the orphan sweep before it exists, so a run is never left unswept; the
    // score is when its provisional lease lapses.
    const member = runMember(threadId, runId);
    const listed = await this.call('createRun', (c) =>
      c.zadd(k.activeRuns, 'NX', run.createdAt + this.leaseMs, member),
    );
    const reply = (await this.call('createRun', (c) =>
      c.rsCreateRun(
        k.run(threadId, runId),
        k.thread(threadId),
        k.threadRuns(threadId),
        k.threadRunning(threadId),
        k.lease(threadId, runId),
        runId,
        threadId,
        run.createdAt,
        run.owner,
        this.leaseMs,
        run.threadToken ?? '',
        run.maxRunningInThread ?? 0,
        `${k.run(threadId, '')}`,
        ...(run.replyTo === undefined ? [] : [run.replyTo ?? '']),
      ),
    )) as [number, (string[] | string)?];
    if (reply[0] !== 1 && listed === 1) {
      await this.call('createRun', (c) => c.zrem(k.activeRuns, member)).catch(() => 0);
    }
    if (reply[0] === -1) throw threadNotFound(threadId);
    if (reply[0] === -2) throw runInProgress(threadId, String(reply[1]));
    return { created: reply[0] === 1, run: toRecord(reply[1] as string[], 1)! };
  }

  /** {@inheritDoc EventStore.getRun} */
  async getRun(runId: string): Promise<RunRecord | null> {
    const known = this.runs.known(runId) !== undefined;
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return null;
    const record = await this.getRunOf(threadId, runId);
    if (record || !known) return record;
    // Remembered from before its thread was deleted: the id may be another thread's now.
    this.runs.drop(runId);
    const again = await this.runs.threadOf(runId);
    return again === null || again === threadId ? null : this.getRunOf(again, runId);
  }

  /**
   * The run `runId` of `threadId`, or null: `getRun` without looking the run's thread up.
   * The store's own parts use it; an application has no need to.
   */
  async getRunOf(threadId: string, runId: string): Promise<RunRecord | null> {
    const [fields, streamExists] = (await this.call('getRun', (c) =>
      c.rsGetRun(this.keys.run(threadId, runId), this.keys.events(threadId, runId)),
    )) as [string[], number];
    return toRecord(fields, streamExists);
  }

  /** {@inheritDoc EventStore.listRuns} */
  async listRuns(threadId: string, limit: number): Promise<RunRecord[]> {
    if (limit <= 0) return [];
    const rows = (await this.call('listRuns', (c) =>
      c.rsListRuns(this.keys.threadRuns(threadId), limit, this.keys.run(threadId, '')),
    )) as Array<[string[], number]>;
    return rows.flatMap(([fields, exists]) => toRecord(fields, exists) ?? []);
  }

  /** {@inheritDoc EventStore.append} */
  async append(runId: string, events: readonly StoredEvent[], end?: RunEnd): Promise<void> {
    const first = events[0]?.offset ?? -1;
    for (let i = 1; i < events.length; i++) {
      if (events[i]!.offset !== first + i) {
        throw new AppendConflictError(runId, first + i, events[i]!.offset);
      }
    }
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) throw runNotFound(runId);
    const k = this.keys;
    const live = k.runLive(threadId, runId);
    const durable = this.durability;
    const args = [
      k.run(threadId, runId),
      k.events(threadId, runId),
      k.lease(threadId, runId),
      k.threadRunning(threadId),
      runId,
      first,
      events.length,
      end ? 1 : 0,
      end?.status ?? '',
      end?.endedAt ?? 0,
      end ? JSON.stringify(end.snapshot) : '',
      this.eventsTtlMs,
      // A durable append publishes once a replica has it (below), not in the script.
      durable ? '' : live,
      ...events.map((event) => event.json),
    ];
    const reply = durable
      ? await this.durably<[number, number?]>('append', runId, (p) => p.rsAppend(...args))
      : ((await this.call('append', (c) => c.rsAppend(...args))) as [number, number?]);
    if (reply[0] === -1) throw runNotFound(runId);
    if (reply[0] === 0) {
      const expected = (reply as [number, number])[1];
      // A durable retry that finds its batch landed: a replica has it now (WAIT said so).
      if (durable && first !== -1 && expected > first) {
        this.markDurable(threadId, runId, expected - 1, `${first}:${expected - 1}`);
      }
      throw new AppendConflictError(runId, expected, first === -1 ? expected : first);
    }
    if (durable && events.length > 0) {
      const last = events[events.length - 1]!.offset;
      this.markDurable(threadId, runId, last, livePayload(events));
    }
    if (end) await this.indexEnded(threadId, runId, end.endedAt);
  }

  /**
   * Readers may see up to `offset` now (a replica acknowledged it), and live tails hear of
   * it. Not waited for: a mark that fails is made by the run's next append, and a tail
   * that misses the message reads the stream (its offsets show the gap).
   */
  private markDurable(threadId: string, runId: string, offset: number, message: string): void {
    const k = this.keys;
    void this.call('markDurable', (c) =>
      c.rsMarkDurable(k.run(threadId, runId), offset, k.runLive(threadId, runId), message),
    ).catch(() => 0);
  }

  /** {@inheritDoc EventStore.readEvents} */
  async readEvents(runId: string, after: number, limit: number): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return [];
    return this.readRun(threadId, runId, after, limit);
  }

  /** A run's events after `after`: with durable appends, only those a replica has (`READ_EVENTS`). */
  private async readRun(
    threadId: string,
    runId: string,
    after: number,
    limit: number,
  ): Promise<StoredEvent[]> {
    const k = this.keys;
    if (!this.durability) return this.readStream(k.events(threadId, runId), after, limit);
    const entries = (await this.call('readEvents', (c) =>
      c.rsReadEvents(
        k.run(threadId, runId),
        k.events(threadId, runId),
        k.lease(threadId, runId),
        after + 1,
        limit,
      ),
    )) as Array<[string, string[]]>;
    return entries.map(([id, fields]) => ({ offset: offsetOf(id), json: fields[1] ?? 'null' }));
  }

  /**
   * Entries of the Redis stream at `key` after `after` (an offset), at most `limit`: the
   * store's own parts use it (a run's and a thread's log); an application has no need to.
   */
  async readStream(key: string, after: number, limit: number): Promise<StoredEvent[]> {
    const entries = (await this.call('readEvents', (c) =>
      c.xrange(key, entryId(after + 1), '+', 'COUNT', limit),
    )) as Array<[string, string[]]>;
    return entries.map(([id, fields]) => ({ offset: offsetOf(id), json: fields[1] ?? 'null' }));
  }

  // ---- history ---------------------------------------------------------------------------

  /** {@inheritDoc EventStore.putMessages} */
  async putMessages(threadId: string, _runId: string, messages: readonly Message[]) {
    const args: string[] = [];
    for (const message of messages) args.push(message.id, JSON.stringify(message));
    const k = this.keys;
    const reply = await this.call('putMessages', (c) =>
      c.rsPutMessages(k.thread(threadId), k.history(threadId), k.messages(threadId), ...args),
    );
    if (reply === -1) throw threadNotFound(threadId);
  }

  /** {@inheritDoc EventStore.listMessages} */
  async listMessages(threadId: string, before: number | null, limit: number): Promise<MessagePage> {
    if (limit <= 0) return { messages: [], nextBefore: null };
    const [rows, bodies] = (await this.call('listMessages', (c) =>
      c.rsListMessages(
        this.keys.history(threadId),
        this.keys.messages(threadId),
        before === null ? '' : before,
        limit,
      ),
    )) as [string[], Array<string | null>];
    return messagePage(rows, bodies, limit);
  }

  // ---- orphans and retention -------------------------------------------------------------

  /** {@inheritDoc EventStore.findOrphanedRuns} */
  findOrphanedRuns(): Promise<RunRecord[]> {
    return findOrphanedRuns(this);
  }

  /** {@inheritDoc EventStore.pruneEvents} */
  pruneEvents(endedBefore: number): Promise<number> {
    return pruneEvents(this, endedBefore);
  }

  /**
   * An ended run leaves the orphan sweep's index for the retention sweep's. Each index is a
   * key of its own (another slot): written after the run's own step, and repaired by the
   * sweeps should this fail (the run's hash is the truth). The store's own parts call it
   * (`append`, the sweeps); an application has no need to.
   */
  async indexEnded(threadId: string, runId: string, endedAt: number): Promise<void> {
    const member = runMember(threadId, runId);
    await Promise.all([
      this.call('indexEnded', (c) => c.zrem(this.keys.activeRuns, member)),
      this.call('indexEnded', (c) => c.zadd(this.keys.endedRuns, endedAt, member)),
    ]).catch(() => {});
  }

  // ---- shared-store members --------------------------------------------------------------

  /** {@inheritDoc EventStore.subscribe} */
  subscribe(
    runId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void {
    let stop: (() => void) | null = null;
    let stopped = false;
    const follow = (threadId: string) => {
      const source = {
        channel: this.keys.runLive(threadId, runId),
        read: (from: number, limit: number) => this.readRun(threadId, runId, from, limit),
      };
      stop = this.liveTails().add(`run ${runId}`, source, after, onEvents, onError);
    };
    const known = this.runs.known(runId);
    if (known !== undefined) follow(known);
    else {
      this.runs.threadOf(runId).then(
        (threadId) => {
          if (stopped) return;
          if (threadId === null) onError?.(runNotFound(runId));
          else follow(threadId);
        },
        (error: unknown) => {
          if (!stopped) onError?.(error);
        },
      );
    }
    return () => {
      stopped = true;
      stop?.();
    };
  }

  /** {@inheritDoc EventStore.requestCancel} */
  async requestCancel(runId: string): Promise<void> {
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return;
    await this.call('requestCancel', (c) =>
      c.rsRequestCancel(this.keys.run(threadId, runId), this.keys.cancelChannel, runId),
    );
  }

  /** {@inheritDoc EventStore.onCancelRequest} */
  onCancelRequest(listener: (runId: string) => void): () => void {
    this.cancelListeners.add(listener);
    if (!this.closed) {
      const subscriber = this.subscriberClient();
      if (subscriber.listenerCount('message') === 0) {
        subscriber.on('message', (channel: string, runId: string) => {
          if (channel === this.keys.cancelChannel) this.emitCancel(runId);
        });
        // Until subscribed, a cancel still reaches the owner through its lease renewal.
        void subscribeWithRetry(
          () => subscriber.subscribe(this.keys.cancelChannel),
          () => !this.closed,
          (error) => this.log(`redis: cannot subscribe to cancel requests yet: ${String(error)}`),
          () => this.log('redis: subscribed to cancel requests'),
        );
      }
    }
    return () => {
      this.cancelListeners.delete(listener);
    };
  }

  /** {@inheritDoc EventStore.acquireLease} */
  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return false;
    const ttl = Math.max(1, Math.round(ttlMs));
    const reply = await this.call('acquireLease', (c) =>
      c.rsAcquireLease(this.keys.lease(threadId, runId), owner, ttl),
    );
    if (reply === 1) await this.relist(threadId, runId, ttl);
    return reply === 1;
  }

  /** {@inheritDoc EventStore.renewLease} */
  async renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return false;
    const ttl = Math.max(1, Math.round(ttlMs));
    const [renewed, cancel] = (await this.call('renewLease', (c) =>
      c.rsRenewLease(this.keys.lease(threadId, runId), this.keys.run(threadId, runId), owner, ttl),
    )) as [number, number];
    // A cancel whose pub/sub message this instance missed (it was reconnecting).
    if (cancel === 1) this.emitCancel(runId);
    if (renewed === 1) await this.relist(threadId, runId, ttl);
    return renewed === 1;
  }

  /** {@inheritDoc EventStore.releaseLease} */
  async releaseLease(runId: string, owner: string): Promise<void> {
    const threadId = await this.runs.threadOf(runId);
    if (threadId === null) return;
    const released = await this.call('releaseLease', (c) =>
      c.rsReleaseLease(this.keys.lease(threadId, runId), owner),
    );
    // A run still running without its lease is the sweep's at once (an ended one has left
    // the index, and `XX` does not bring it back).
    if (released === 1) await this.relist(threadId, runId, 0);
  }

  /** {@inheritDoc EventStore.close} */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tails?.close();
    this.cancelListeners.clear();
    // The subscriber sits in subscriber mode: a QUIT would wait behind it, so it is
    // simply disconnected.
    this.subscriber?.disconnect();
    await Promise.all([this.client, ...this.appendClients].map((client) => quit(client)));
  }

  // ---- connections -----------------------------------------------------------------------

  /**
   * Whether appends wait for a replica's acknowledgement (`durableAppends`).
   * @internal
   */
  get durable(): boolean {
    return this.durability !== null;
  }

  /**
   * The live tails of this instance (one subscriber connection, or one per shard).
   * @internal
   */
  liveTails(): LiveTails {
    this.tails ??= new LiveTails({
      subscriber: this.subscriberClient(),
      checkMs: this.tailCheckMs,
      readCount: 1000,
      log: this.log,
    });
    return this.tails;
  }

  /**
   * The connection that only subscribes (cancel requests, live tails): it may wait for
   * Redis (queue, no retry limit), and ioredis subscribes again after each reconnect.
   */
  private subscriberClient(): RedisClient {
    this.subscriber ??= this.connect('subscriber', {
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    return this.subscriber;
  }

  /** The orphan sweep's index follows the lease: its score is when the lease lapses. */
  private async relist(threadId: string, runId: string, ttlMs: number): Promise<void> {
    const member = runMember(threadId, runId);
    await this.call('relist', (c) =>
      c.zadd(this.keys.activeRuns, 'XX', Date.now() + ttlMs, member),
    ).catch(() => 0);
  }

  private connect(name: string, extra: RedisOptions = {}): RedisClient {
    const node = { ...this.connection, ...extra, connectionName: `resumable-${name}` };
    const client = openClient(this.target, {
      node,
      maxReconnectDelayMs: this.maxReconnectDelayMs,
      shardedSubscribers: name === 'subscriber',
      ...(this.clusterOptions ? { cluster: this.clusterOptions } : {}),
    });
    let down = false;
    client.on('error', (error: Error) => {
      // One line per outage and connection, not one per reconnect attempt.
      if (down || this.closed) return;
      down = true;
      this.log(`redis (${name}) unreachable: ${error.message}; reconnecting`);
    });
    client.on('ready', () => {
      if (down) this.log(`redis (${name}) reconnected`);
      down = false;
    });
    return client;
  }

  /** Resolves when `client` is up; `store_unavailable` after `connectWaitMs`. */
  private ready(client: RedisClient = this.client): Promise<void> {
    if (this.closed) return Promise.reject(unavailable('the Redis store is closed'));
    return whenReady(client, this.waits, this.connectWaitMs, this.label);
  }

  /**
   * The durable-append connection of `key` (a run's or a thread's id: always the same one,
   * so its appends stay in order). `WAIT` holds a connection until a replica answered (up
   * to `timeoutMs` when none does): on connections of their own, durable appends never
   * hold up reads, leases or another run's appends queued behind them there.
   */
  private appendClient(key: string): Client {
    const count = this.durability!.connections;
    while (this.appendClients.length < count) {
      const client = this.connect(`append-${this.appendClients.length}`) as Client;
      for (const [name, definition] of Object.entries(SCRIPTS)) {
        client.defineCommand(name, definition);
      }
      this.appendClients.push(client);
    }
    let hash = 0;
    for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
    return this.appendClients[hash % count]!;
  }

  /**
   * Runs one Redis operation; any failure of Redis itself becomes `store_unavailable`.
   * @internal
   */
  async call<T>(what: string, op: (client: Client) => Promise<T>): Promise<T> {
    await this.ready();
    this.stats.commands++;
    try {
      return await op(this.client);
    } catch (error) {
      throw this.failure(what, error);
    }
  }

  /**
   * A write that a replica must acknowledge before anyone reads it (`durableAppends`):
   * the script and `WAIT` in one pipeline on `key`'s append connection, so `WAIT` goes to
   * the node that ran the script and counts it. An acknowledgement missing after `timeoutMs` is a store failure: the
   * write is on the primary but may not survive its failover, so nothing of it is shown
   * (the run log holds its events and appends them again, which the store recognises).
   * @internal
   */
  async durably<T>(what: string, key: string, build: (pipeline: Pipeline) => void): Promise<T> {
    const durable = this.durability!;
    const client = this.appendClient(key);
    await this.ready(client);
    let results: Array<[Error | null, unknown]> | null;
    try {
      const pipeline = client.pipeline() as Pipeline;
      build(pipeline);
      pipeline.wait(durable.replicas, durable.timeoutMs);
      this.stats.commands += pipeline.length;
      results = await pipeline.exec();
    } catch (error) {
      throw this.failure(what, error, client);
    }
    const [write, wait] = results ?? [];
    if (!write || !wait) throw unavailable(`Redis ${what}: no reply`);
    if (write[0]) throw this.failure(what, write[0], client);
    if (wait[0]) throw this.failure(what, wait[0], client);
    const acknowledged = Number(wait[1]);
    if (acknowledged < durable.replicas) {
      throw unavailable(
        `Redis ${what}: ${acknowledged} of ${durable.replicas} replicas acknowledged it within ${durable.timeoutMs} ms`,
      );
    }
    return write[1] as T;
  }

  private failure(what: string, error: unknown, client: RedisClient = this.client): Error {
    if (error instanceof ResumableError) return error;
    const message = (error as Error)?.message ?? String(error);
    // The connection went while the call was on its way ("Stream isn't writeable"): the
    // same words as a call that waited for it, whichever came first.
    if (!connectionUp(client)) {
      return unavailable(unreachable(this.label, `${what}: ${message}`), error);
    }
    return unavailable(`Redis ${what} failed: ${message}`, error);
  }

  private emitCancel(runId: string): void {
    for (const listener of [...this.cancelListeners]) {
      try {
        listener(runId);
      } catch (error) {
        this.log(`a cancel listener threw: ${String(error)}`);
      }
    }
  }
}
