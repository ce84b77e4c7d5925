import { inject } from 'vitest';
import { RedisStore, type RedisStoreOptions } from '../../src/stores/redis/redis-store.js';

/** URL of the project's test redis-server; throws (the test fails) when there is none. */
export function testRedisUrl(): string {
  const error = inject('redisError');
  if (error) throw new Error(error);
  return inject('redisUrl');
}

/** Seed nodes of the project's test Redis Cluster; throws (the test fails) when there is none. */
export function testClusterSeeds(): string[] {
  const error = inject('clusterError');
  if (error) throw new Error(error);
  return inject('clusterSeeds');
}

let seq = 0;

/** A key prefix no other test uses. */
export function uniquePrefix(): string {
  return `t${process.pid}-${Date.now().toString(36)}-${++seq}:`;
}

/** A Redis store on the test redis-server under a fresh prefix. */
export function testRedisStore(options: RedisStoreOptions = {}): RedisStore {
  return new RedisStore({ url: testRedisUrl(), prefix: uniquePrefix(), ...options });
}

/** A Redis store on the test Redis Cluster under a fresh prefix (appends durable: its default). */
export function testClusterStore(options: RedisStoreOptions = {}): RedisStore {
  return new RedisStore({ cluster: testClusterSeeds(), prefix: uniquePrefix(), ...options });
}

/**
 * Resolves once `store` answers (its connection is up), within 20 s. A fresh cluster
 * client takes several round trips (the slots, every primary) and, on a loaded machine,
 * may take longer than `connectWaitMs`: a test's first request would then be a 503.
 */
export async function connected<T extends RedisStore>(store: T): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      await store.getThread('connection-probe');
      return store;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
