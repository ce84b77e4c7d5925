import type { RedisOptions } from 'ioredis';

export interface RedisStoreOptions {
  /**
   * The Redis server, as a `redis://[user:password@]host:port[/db]` URL
   * (`rediss://` for TLS).
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * Prefix of every key, so deployments (or tests) can share one Redis database.
   * @default 'resumable:'
   */
  prefix?: string;
  /**
   * How long a finished run's events stay: the run's stream gets this TTL when its
   * terminal event is stored. The run record and its snapshot stay (like SQLite's).
   * Keep it at least the server's `retention.eventsHours`.
   * @default 604800000 (168 hours)
   */
  eventsTtlMs?: number;
  /**
   * Lease a new run gets from `createRun` until its producer's `acquireLease`.
   * @default 15000
   */
  leaseMs?: number;
  /**
   * How long an operation waits for a connecting or reconnecting Redis before it fails
   * with `store_unavailable` (503). Requests never queue longer than this.
   * @default 1000
   */
  connectWaitMs?: number;
  /**
   * Time after which a command without a reply fails with `store_unavailable`.
   * @default 5000
   */
  commandTimeoutMs?: number;
  /**
   * `XREAD BLOCK` time of the shared live-tail reader.
   * @default 5000
   */
  blockMs?: number;
  /**
   * Longest pause between reconnect attempts while Redis is away (ioredis `retryStrategy`
   * grows by 100 ms per attempt up to this).
   * @default 1000
   */
  maxReconnectDelayMs?: number;
  /** More ioredis options (TLS, Sentinel, …); the store's own settings win. */
  redisOptions?: RedisOptions;
  /** Where connection warnings go. @default console.warn */
  log?: (message: string) => void;
}
