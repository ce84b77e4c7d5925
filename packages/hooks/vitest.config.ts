import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'hooks',
    // Core tests run in Node (real fetch, real sockets); React tests opt into jsdom per file.
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    setupFiles: ['fake-indexeddb/auto'],
    testTimeout: 20_000,
  },
});
