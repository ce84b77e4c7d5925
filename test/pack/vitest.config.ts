import { defineProject } from 'vitest/config';

// Packing is CPU-bound (builds, an install, tsc) like the package suites, so it runs in
// their group, not beside the browser files that wait on answers (test/vitest.config.ts).
export default defineProject({
  test: {
    name: 'pack',
    environment: 'node',
    include: ['*.test.ts'],
  },
});
