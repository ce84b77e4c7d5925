import { ResumableError } from '@resumable/protocol';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { DEFAULTS, REDIS_SUBSCRIBE_RETRY_MS } from '../../defaults.js';
import type { RedisTarget } from './options.js';

/** A connection to one Redis, or to a cluster (ioredis routes each command by its key). */
export type RedisClient = Redis | Cluster;

export interface ConnectOptions {
  /** ioredis options of every connection (the node connections, on a cluster). */
  node: RedisOptions;
  /** Longest pause between reconnect attempts. */
  maxReconnectDelayMs: number;
  /** Sharded pub/sub on a cluster: one subscriber connection per primary. */
  shardedSubscribers?: boolean;
  /** More ioredis `Cluster` options (the store's settings win). */
  cluster?: import('ioredis').ClusterOptions;
}

/**
 * Opens a connection to `target`. On a cluster, commands that were never run are retried
 * by ioredis (a `MOVED` or `ASK` after a failover or resharding, `TRYAGAIN`,
 * `CLUSTERDOWN` while a replica is promoted), but a command whose connection closed while
 * it was on its way is not (`retryDelayOnFailover: 0`): it may have run, and the caller
 * decides (the conditional append recognises a batch that landed).
 */
export function openClient(target: RedisTarget, options: ConnectOptions): RedisClient {
  const retryStrategy = (times: number) => Math.min(times * 100, options.maxReconnectDelayMs);
  if (target.kind === 'single') return new Redis(target.url, { ...options.node, retryStrategy });
  const { retryStrategy: _ignored, ...node } = { ...options.node, ...target.nodeOptions };
  const cluster = new Cluster(target.seeds, {
    ...options.cluster,
    redisOptions: node,
    enableOfflineQueue: node.enableOfflineQueue ?? false,
    scaleReads: 'master',
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshInterval:
      options.cluster?.slotsRefreshInterval ?? DEFAULTS.redis.slotsRefreshInterval,
    clusterRetryStrategy: retryStrategy,
    // A node that went away is connected again (a restarted replica, a primary back).
    clusterNodeRetryStrategy: retryStrategy,
    shardedSubscribers: options.shardedSubscribers ?? false,
  });
  // ioredis connects to a node on its first command, and (without an offline queue) fails
  // the commands that reach it while it connects: "Connection is closed." Each node is
  // connected as soon as it is known instead (`whenReady` waits for the primaries).
  const connectNode = (redis: Redis) => {
    // Replicas are never read from (`scaleReads: 'master'`): left to connect when asked.
    if (redis.status === 'wait' && !redis.options.readOnly) redis.connect().catch(() => {});
  };
  cluster.on('+node', connectNode);
  for (const redis of cluster.nodes('all')) connectNode(redis);
  return cluster;
}

export async function quit(client: RedisClient): Promise<void> {
  try {
    if (client.status === 'ready') {
      await client.quit();
      return;
    }
  } catch {
    // Redis went away meanwhile: drop the socket below.
  }
  client.disconnect();
}

export function redactedUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/**
 * Whether `client` can write now: ready, and (one Redis) its socket still writable. ioredis
 * checks both before it sends, and a socket Redis closed can still read `ready` for a
 * moment. A cluster is ready while it knows where each slot is.
 */
export function connectionUp(client: RedisClient): boolean {
  if (client instanceof Cluster) return client.status === 'ready';
  return client.status === 'ready' && client.stream?.writable === true;
}

/** What a `store_unavailable` says when Redis cannot be reached (credentials left out). */
export function unreachable(label: string, why: string): string {
  return `Redis at ${redactedUrl(label)} is unreachable (${why})`;
}

export function unavailable(message: string, cause?: unknown): ResumableError {
  return new ResumableError('store_unavailable', message, cause === undefined ? {} : { cause });
}

/**
 * Resolves when `client` is connected; `store_unavailable` after `waitMs`. One `ready`
 * listener per client however many operations wait (`waits` shares it).
 */
export async function whenReady(
  client: RedisClient,
  waits: WeakMap<RedisClient, Promise<void>>,
  waitMs: number,
  label: string,
): Promise<void> {
  if (client.status === 'ready') {
    if (client instanceof Cluster && !warmed.has(client))
      await primariesReady(client, waitMs, label);
    return;
  }
  if (client.status === 'end') throw unavailable('the Redis store is closed');
  let wait = waits.get(client);
  if (!wait) {
    wait = new Promise<void>((resolve) => client.once('ready', () => resolve()));
    waits.set(client, wait);
    void wait.then(() => waits.delete(client));
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const why = `${client.status} for ${waitMs} ms`;
      reject(unavailable(unreachable(label, why)));
    }, waitMs);
  });
  const started = Date.now();
  try {
    await Promise.race([wait, timeout]);
  } finally {
    clearTimeout(timer);
  }
  if (client instanceof Cluster && !warmed.has(client)) {
    await primariesReady(client, Math.max(1, waitMs - (Date.now() - started)), label);
  }
}

/**
 * Clusters whose primaries were all connected once. Only the first connection waits for
 * every primary (a fresh instance's first requests must not fail on a node still
 * connecting); later, a primary that is down fails only the commands of its own slots.
 */
const warmed = new WeakSet<Cluster>();

/** Whether every primary a cluster client knows has its connection up. */
function primariesUp(cluster: Cluster): boolean {
  return cluster.nodes('master').every((node) => node.status === 'ready');
}

/** Waits (polling, bounded by `waitMs`) until `primariesUp`; `store_unavailable` after. */
async function primariesReady(cluster: Cluster, waitMs: number, label: string): Promise<void> {
  const until = Date.now() + waitMs;
  while (!primariesUp(cluster) || cluster.nodes('master').length === 0) {
    if (Date.now() >= until) {
      const down = cluster
        .nodes('master')
        .filter((node) => node.status !== 'ready')
        .map((node) => `${node.options.host}:${node.options.port} ${node.status}`);
      throw unavailable(unreachable(label, `primaries not connected: ${down.join(', ')}`));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  warmed.add(cluster);
}

/**
 * Subscribes with `attempt` (a `SUBSCRIBE` or `SSUBSCRIBE`), and while it fails (a cluster
 * subscriber still connecting, a node failing over) tries again every
 * `REDIS_SUBSCRIBE_RETRY_MS` as long as `wanted()` says so. Resolves after the first
 * attempt with whether it succeeded; `onLate` runs when a later one does.
 */
export async function subscribeWithRetry(
  attempt: () => Promise<unknown>,
  wanted: () => boolean,
  onFirstFailure: (error: unknown) => void,
  onLate: () => void,
): Promise<boolean> {
  const tryOnce = () =>
    attempt().then(
      () => null,
      (error: unknown) => error ?? new Error('subscribe failed'),
    );
  const failed = await tryOnce();
  if (failed === null) return true;
  onFirstFailure(failed);
  void (async () => {
    while (wanted()) {
      await new Promise((resolve) => setTimeout(resolve, REDIS_SUBSCRIBE_RETRY_MS));
      if (!wanted()) return;
      if ((await tryOnce()) === null) {
        onLate();
        return;
      }
    }
  })();
  return false;
}
