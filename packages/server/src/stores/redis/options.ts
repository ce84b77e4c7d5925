import type { ClusterOptions, RedisOptions } from 'ioredis';
import { DEFAULTS } from '../../defaults.js';

/**
 * Which Redis (or Redis Cluster) a `RedisStore` uses, under what key prefix, and how long
 * it waits for it. Every option is optional: the default is a local Redis.
 */
export interface RedisStoreOptions {
  /**
   * The Redis server, as a `redis://[user:password@]host:port[/db]` URL
   * (`rediss://` for TLS), or a Redis Cluster as `redis+cluster://[user:password@]host:port,host:port,…`
   * (seed nodes; `rediss+cluster://` for TLS), the same as the `cluster` option.
   * @default 'redis://127.0.0.1:6379'
   */
  url?: string;
  /**
   * A Redis Cluster (or Valkey cluster): a few of its nodes, as `host:port` or
   * `{host, port}`; ioredis' `Cluster` finds the others. Every key of a thread carries the
   * thread's hash tag, so every script runs in one slot and the cluster shards by
   * conversation. The store behaves as on one Redis; `durableAppends` is then on by default.
   */
  cluster?: ReadonlyArray<string | { host: string; port: number }>;
  /**
   * More ioredis `Cluster` options (`natMap` for a cluster behind NAT or in Docker,
   * `dnsLookup`, `slotsRefreshInterval`, …); the store's own settings win. Reads always go
   * to primaries (`scaleReads: 'master'`): a replica may lag behind the event just stored.
   */
  clusterOptions?: ClusterOptions;
  /**
   * Appends are acknowledged by this many replicas (`WAIT replicas timeoutMs`) before any
   * reader sees them, so a failover to a replica loses no event a client has. An append
   * no replica acknowledges in time counts as a store outage (its events wait in memory,
   * see the server's `limits.storeOutageMs`). `false` turns it off. `WAIT` holds its
   * connection until it returns, so durable appends go over `connections` connections of
   * their own (a run always over the same one), never the one reads and leases use.
   * @default `{ replicas: 1, timeoutMs: 1000, connections: 4 }` on a cluster; `false` on one Redis
   */
  durableAppends?:
    | {
        /** Replicas that must have an append before it counts as stored (1 unless given). */
        replicas?: number;
        /** Milliseconds `WAIT` gives them (1000 unless given); then it is an outage. */
        timeoutMs?: number;
        /** Connections of their own that durable appends go over (4 unless given). */
        connections?: number;
      }
    | false;
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
   * A live tail of a run produced elsewhere that heard nothing for this long reads the
   * run's stream (a published batch lost in a reconnect or failover is found then).
   * @default 5000
   */
  tailCheckMs?: number;
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

/** Where the store connects: one Redis by URL, or a cluster by seed nodes. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster';
      seeds: Array<{ host: string; port: number }>;
      /** Credentials and TLS from a `redis+cluster://` URL, for every node. */
      nodeOptions: RedisOptions;
      /** How the cluster is named in messages (no credentials). */
      label: string;
    };

/** The target of `options`: `cluster`, else a `redis+cluster://` `url`, else one Redis. */
export function targetOf(options: RedisStoreOptions): RedisTarget {
  if (options.cluster) {
    const seeds = options.cluster.map((seed) =>
      typeof seed === 'string' ? hostPort(seed) : { host: seed.host, port: seed.port },
    );
    if (seeds.length === 0) throw new RangeError('cluster needs at least one seed node');
    return { kind: 'cluster', seeds, nodeOptions: {}, label: labelOf(seeds) };
  }
  const url = options.url ?? DEFAULTS.redis.url;
  const scheme = /^(rediss?)\+cluster:\/\//.exec(url);
  if (!scheme) return { kind: 'single', url };
  const rest = url.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const credentials = at === -1 ? '' : rest.slice(0, at);
  const hosts = (at === -1 ? rest : rest.slice(at + 1)).replace(/\/.*$/, '');
  const seeds = hosts
    .split(',')
    .filter((h) => h !== '')
    .map(hostPort);
  if (seeds.length === 0) throw new RangeError(`no seed nodes in ${scheme[0]}… URL`);
  const nodeOptions: RedisOptions = {};
  if (credentials !== '') {
    const colon = credentials.indexOf(':');
    const user = colon === -1 ? '' : decodeURIComponent(credentials.slice(0, colon));
    const password = decodeURIComponent(colon === -1 ? credentials : credentials.slice(colon + 1));
    if (user !== '') nodeOptions.username = user;
    nodeOptions.password = password;
  }
  if (scheme[1] === 'rediss') nodeOptions.tls = {};
  return { kind: 'cluster', seeds, nodeOptions, label: labelOf(seeds) };
}

function hostPort(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  const port = Number(colon === -1 ? 6379 : text.slice(colon + 1));
  const host = (colon === -1 ? text : text.slice(0, colon)).replace(/^\[|\]$/g, '');
  if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new RangeError(`not a host:port: ${text}`);
  }
  return { host, port };
}

function labelOf(seeds: Array<{ host: string; port: number }>): string {
  return `redis+cluster://${seeds.map((s) => `${s.host}:${s.port}`).join(',')}`;
}
