import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'e2e',
    environment: 'node',
    include: ['e2e/**/*.test.ts', 'pack/**/*.test.ts'],
    // Real Chromium against a real server: generous bounds for a busy 2-core machine (other
    // projects run beside this one). Every wait inside the tests is bounded on its own.
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
