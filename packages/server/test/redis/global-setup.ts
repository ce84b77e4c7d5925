import type { TestProject } from 'vitest/node';
import { startRedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the shared test redis-server; '' when it could not start. */
    redisUrl: string;
    /** Why it could not start (e.g. redis-server is not installed); '' when it did. */
    redisError: string;
  }
}

/**
 * One redis-server for the whole server project; every test prefixes its keys, so files
 * running in parallel never meet. Tests that stop Redis start their own. When it cannot
 * start, the Redis tests fail with the reason (they never skip) and the others still run.
 */
export default async function setup(project: TestProject) {
  try {
    const redis = await startRedisServer();
    project.provide('redisUrl', redis.url);
    project.provide('redisError', '');
    return async () => {
      await redis.dispose();
    };
  } catch (error) {
    project.provide('redisUrl', '');
    project.provide('redisError', error instanceof Error ? error.message : String(error));
    return undefined;
  }
}
