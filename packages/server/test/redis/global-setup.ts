import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';
import { startRedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the shared test redis-server; '' when it could not start. */
    redisUrl: string;
    /** Why it could not start (e.g. redis-server is not installed); '' when it did. */
    redisError: string;
    /** Seed nodes (`host:port`) of the shared test Redis Cluster; [] when it could not start. */
    clusterSeeds: string[];
    /** Why the cluster could not start; '' when it did. */
    clusterError: string;
  }
}

/**
 * One redis-server and one Redis Cluster (3 primaries, 3 replicas) for the whole server
 * project; every test prefixes its keys, so files running in parallel never meet. Tests
 * that stop, kill or pause Redis start their own. When either cannot start, its tests fail
 * with the reason (they never skip) and the others still run.
 */
export default async function setup(project: TestProject) {
  const [redis, cluster] = await Promise.allSettled([startRedisServer(), startRedisCluster()]);
  project.provide('redisUrl', redis.status === 'fulfilled' ? redis.value.url : '');
  project.provide('redisError', redis.status === 'rejected' ? messageOf(redis.reason) : '');
  project.provide('clusterSeeds', cluster.status === 'fulfilled' ? cluster.value.seeds : []);
  project.provide('clusterError', cluster.status === 'rejected' ? messageOf(cluster.reason) : '');
  return async () => {
    await Promise.all([
      redis.status === 'fulfilled' ? redis.value.dispose() : undefined,
      cluster.status === 'fulfilled' ? cluster.value.dispose() : undefined,
    ]);
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
