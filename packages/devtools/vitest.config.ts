import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'devtools',
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: ['fake-indexeddb/auto'],
    testTimeout: 20_000,
  },
});
