import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'server',
    environment: 'node',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A real redis-server for the Redis store's tests (issue 7).
    globalSetup: ['test/redis/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
