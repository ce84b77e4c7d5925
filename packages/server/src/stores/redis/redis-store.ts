import type { Message } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { Redis, type RedisOptions } from 'ioredis';
import type {
  EventStore,
  MessagePage,
  NewRun,
  RunEnd,
  RunRecord,
  StoredEvent,
  ThreadRecord,
} from '../types.js';
import { AppendConflictError, runNotFound, threadNotFound } from '../types.js';
import { connectionUp, quit, unreachable, whenReady } from './connection.js';
import { RedisInterruptLedger } from './interrupts.js';
import { entryId, offsetOf, RedisKeys } from './keys.js';
import type { RedisStoreOptions } from './options.js';
import { messagePage, THREAD_FIELDS, threadOf, toRecord } from './records.js';
import { SCRIPTS, type ScriptCommands } from './scripts.js';
import { findOrphanedRuns, pruneEvents } from './sweeps.js';
import { TailReader, unavailable } from './tail.js';
import { RedisThreadLog } from './thread-log.js';
import { RedisFiles, RedisThreadEdits } from './threads.js';

export type { RedisStoreOptions };

type Client = Redis & ScriptCommands;

/**
 * Runs in Redis, shared by any number of server instances: every event in a Redis Stream
 * per run (entry id = offset, so offsets stay 1..N and any instance serves any offset),
 * run records and thread history in hashes and sorted sets, conditional appends in Lua
 * (atomic: one terminal event even when instances race), ownership leases (`SET NX PX`)
 * whose lapse marks a run orphaned, live tails through one shared `XREAD BLOCK` reader,
 * and cancel requests through pub/sub.
 *
 * Connections fail fast: no offline queue, no retried requests. While Redis is away
 * every operation throws `ResumableError('store_unavailable')` (HTTP 503) within
 * `connectWaitMs`, nothing is half-written (each write is one script), and ioredis
 * reconnects on its own when Redis is back.
 */
export class RedisStore implements EventStore {
  readonly kind = 'redis';
  readonly shared = true;
  readonly keys: RedisKeys;
  readonly interrupts: RedisInterruptLedger;
  private readonly client: Client;
  private readonly url: string;
  private readonly connection: RedisOptions;
  private readonly eventsTtlMs: number;
  private readonly leaseMs: number;
  private readonly connectWaitMs: number;
  private readonly blockMs: number;
  private readonly log: (message: string) => void;
  private readonly waits = new WeakMap<Redis, Promise<void>>();
  private readonly extraClients: Redis[] = [];
  private readonly cancelListeners = new Set<(runId: string) => void>();
  private tails: TailReader | null = null;
  private subscriber: Redis | null = null;
  private closed = false;
  readonly threadLog = new RedisThreadLog(this); // protocol.md, "Thread event stream"
  readonly threadEdits = new RedisThreadEdits(this);
  readonly files = new RedisFiles(this);

  constructor(options: RedisStoreOptions = {}) {
    this.url = options.url ?? 'redis://127.0.0.1:6379';
    this.keys = new RedisKeys(options.prefix ?? 'resumable:');
    this.eventsTtlMs = Math.max(1, Math.round(options.eventsTtlMs ?? 168 * 3_600_000));
    this.leaseMs = options.leaseMs ?? 15_000;
    this.connectWaitMs = options.connectWaitMs ?? 1000;
    this.blockMs = options.blockMs ?? 5000;
    this.log = options.log ?? ((message) => console.warn(`[resumable] ${message}`));
    const maxDelay = options.maxReconnectDelayMs ?? 1000;
    this.connection = {
      ...options.redisOptions,
      // RESP2 keeps the reply shapes of XREAD/XRANGE/HGETALL stable and simple.
      protocol: 2,
      // Fail fast: a request while Redis is away answers 503 instead of waiting in a
      // queue, and a command in flight when the connection drops is never re-sent
      // behind the caller's back (the caller already got an error and may retry).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (times: number) => Math.min(times * 100, maxDelay),
    };
    this.client = this.connect('main', options.commandTimeoutMs ?? 5000) as Client;
    for (const [name, definition] of Object.entries(SCRIPTS)) {
      this.client.defineCommand(name, definition);
    }
    this.interrupts = new RedisInterruptLedger(this.keys, (what, op) => this.call(what, op));
    // Connected now, so the first live tail (every instance has one soon) does not wait.
    this.tailReader();
  }

  // ---- threads -------------------------------------------------------------------------

  async createThread(thread: ThreadRecord): Promise<boolean> {
    const reply = await this.call('createThread', (c) =>
      c.rsCreateThread(
        this.keys.thread(thread.threadId),
        thread.token,
        thread.createdAt,
        thread.firstRunId ?? '',
      ),
    );
    return reply === 1;
  }

  async getThread(threadId: string): Promise<ThreadRecord | null> {
    const key = this.keys.thread(threadId);
    return threadOf(threadId, await this.call('getThread', (c) => c.hmget(key, ...THREAD_FIELDS)));
  }

  // ---- runs ------------------------------------------------------------------------------

  async createRun(run: NewRun): Promise<{ created: boolean; run: RunRecord }> {
    const k = this.keys;
    const reply = (await this.call('createRun', (c) =>
      c.rsCreateRun(
        k.run(run.runId),
        k.thread(run.threadId),
        k.threadRuns(run.threadId),
        k.running,
        k.lease(run.runId),
        run.runId,
        run.threadId,
        run.createdAt,
        run.owner,
        this.leaseMs,
        run.threadToken ?? '',
        ...(run.replyTo === undefined ? [] : [run.replyTo ?? '']),
      ),
    )) as [number, string[]?];
    if (reply[0] === -1) throw threadNotFound(run.threadId);
    return { created: reply[0] === 1, run: toRecord(reply[1] ?? [], 1)! };
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const [fields, streamExists] = (await this.call('getRun', (c) =>
      c.rsGetRun(this.keys.run(runId), this.keys.events(runId)),
    )) as [string[], number];
    return toRecord(fields, streamExists);
  }

  async listRuns(threadId: string, limit: number): Promise<RunRecord[]> {
    if (limit <= 0) return [];
    const ids = await this.call('listRuns', (c) =>
      c.zrevrange(this.keys.threadRuns(threadId), 0, limit - 1),
    );
    const records = await Promise.all(ids.map((id) => this.getRun(id)));
    return records.filter((r): r is RunRecord => r !== null);
  }

  async append(runId: string, events: readonly StoredEvent[], end?: RunEnd): Promise<void> {
    const first = events[0]?.offset ?? -1;
    for (let i = 1; i < events.length; i++) {
      if (events[i]!.offset !== first + i) {
        throw new AppendConflictError(runId, first + i, events[i]!.offset);
      }
    }
    const k = this.keys;
    const reply = (await this.call('append', (c) =>
      c.rsAppend(
        k.run(runId),
        k.events(runId),
        k.running,
        k.ended,
        k.lease(runId),
        runId,
        first,
        events.length,
        end ? 1 : 0,
        end?.status ?? '',
        end?.endedAt ?? 0,
        end ? JSON.stringify(end.snapshot) : '',
        this.eventsTtlMs,
        ...events.map((event) => event.json),
      ),
    )) as [number, number?];
    if (reply[0] === -1) throw runNotFound(runId);
    if (reply[0] === 0) {
      const expected = reply[1]!;
      throw new AppendConflictError(runId, expected, first === -1 ? expected : first);
    }
  }

  async readEvents(runId: string, after: number, limit: number): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    const entries = (await this.call('readEvents', (c) =>
      c.xrange(this.keys.events(runId), entryId(after + 1), '+', 'COUNT', limit),
    )) as Array<[string, string[]]>;
    return entries.map(([id, fields]) => ({ offset: offsetOf(id), json: fields[1] ?? 'null' }));
  }

  // ---- history ---------------------------------------------------------------------------

  async putMessages(threadId: string, _runId: string, messages: readonly Message[]) {
    const args: string[] = [];
    for (const message of messages) args.push(message.id, JSON.stringify(message));
    const k = this.keys;
    const reply = await this.call('putMessages', (c) =>
      c.rsPutMessages(k.thread(threadId), k.history(threadId), k.messages(threadId), ...args),
    );
    if (reply === -1) throw threadNotFound(threadId);
  }

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

  findOrphanedRuns(): Promise<RunRecord[]> {
    return findOrphanedRuns(this);
  }

  pruneEvents(endedBefore: number): Promise<number> {
    return pruneEvents(this, endedBefore);
  }

  // ---- shared-store members --------------------------------------------------------------

  subscribe(
    runId: string,
    after: number,
    onEvents: (events: StoredEvent[]) => void,
    onError?: (error: unknown) => void,
  ): () => void {
    return this.tailReader().add(runId, this.keys.events(runId), after, onEvents, onError);
  }

  async requestCancel(runId: string): Promise<void> {
    await this.call('requestCancel', (c) =>
      c.rsRequestCancel(this.keys.run(runId), this.keys.cancelChannel, runId),
    );
  }

  onCancelRequest(listener: (runId: string) => void): () => void {
    this.cancelListeners.add(listener);
    if (!this.subscriber && !this.closed) {
      // This connection only ever SUBSCRIBEs: it may wait for Redis (queue, no retry
      // limit), and ioredis subscribes again after each reconnect.
      const subscriber = this.connect('cancel', undefined, {
        enableOfflineQueue: true,
        maxRetriesPerRequest: null,
      });
      this.subscriber = subscriber;
      subscriber.on('message', (channel: string, runId: string) => {
        if (channel === this.keys.cancelChannel) this.emitCancel(runId);
      });
      subscriber.subscribe(this.keys.cancelChannel).catch((error: unknown) => {
        this.log(`redis: cannot subscribe to cancel requests: ${String(error)}`);
      });
    }
    return () => {
      this.cancelListeners.delete(listener);
    };
  }

  async acquireLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    const reply = await this.call('acquireLease', (c) =>
      c.rsAcquireLease(this.keys.lease(runId), owner, Math.max(1, Math.round(ttlMs))),
    );
    return reply === 1;
  }

  async renewLease(runId: string, owner: string, ttlMs: number): Promise<boolean> {
    const [renewed, cancel] = (await this.call('renewLease', (c) =>
      c.rsRenewLease(
        this.keys.lease(runId),
        this.keys.run(runId),
        owner,
        Math.max(1, Math.round(ttlMs)),
      ),
    )) as [number, number];
    // A cancel whose pub/sub message this instance missed (it was reconnecting).
    if (cancel === 1) this.emitCancel(runId);
    return renewed === 1;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    await this.call('releaseLease', (c) => c.rsReleaseLease(this.keys.lease(runId), owner));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tails?.close();
    this.cancelListeners.clear();
    // The tail reader sits in a blocking XREAD and the subscriber in SUBSCRIBE: a QUIT
    // would wait behind them, so those two are simply disconnected.
    for (const client of this.extraClients) client.disconnect();
    await quit(this.client);
  }

  // ---- connections -----------------------------------------------------------------------

  /** The shared blocking reader (its connection opens with the store, ready when needed). */
  tailReader(): TailReader {
    this.tails ??= new TailReader({
      reader: this.connect('tail', undefined),
      control: this.client,
      ready: (client) => this.ready(client),
      blockMs: this.blockMs,
      count: 1000,
      log: this.log,
    });
    return this.tails;
  }

  private connect(
    name: string,
    commandTimeout: number | undefined,
    extra: RedisOptions = {},
  ): Redis {
    const client = new Redis(this.url, {
      ...this.connection,
      ...extra,
      connectionName: `resumable-${name}`,
      ...(commandTimeout === undefined ? {} : { commandTimeout }),
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
    if (name !== 'main') this.extraClients.push(client);
    return client;
  }

  /** Resolves when `client` is connected; `store_unavailable` after `connectWaitMs`. */
  private ready(client: Redis = this.client): Promise<void> {
    if (this.closed) return Promise.reject(unavailable('the Redis store is closed'));
    return whenReady(client, this.waits, this.connectWaitMs, this.url);
  }

  /** Runs one Redis operation; any failure of Redis itself becomes `store_unavailable`. */
  async call<T>(what: string, op: (client: Client) => Promise<T>): Promise<T> {
    await this.ready();
    try {
      return await op(this.client);
    } catch (error) {
      if (error instanceof ResumableError) throw error;
      const message = (error as Error)?.message ?? String(error);
      // The connection went while the call was on its way ("Stream isn't writeable"): the
      // same words as a call that waited for it, whichever came first.
      if (!connectionUp(this.client)) {
        throw unavailable(unreachable(this.url, `${what}: ${message}`), error);
      }
      throw unavailable(`Redis ${what} failed: ${message}`, error);
    }
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
