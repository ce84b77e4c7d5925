import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: { name: 'protocol', environment: 'node', include: ['src/**/*.test.ts'] },
});
