import { defineProject } from 'vitest/config';

// Packing is CPU-bound (builds, an install, tsc) like the package suites, so it runs in
// their group, not beside the browser files that wait on answers (test/vitest.config.ts).
export default defineProject({
  test: {
    name: 'pack',
    environment: 'node',
    include: ['*.test.ts'],
    // The packages' build starts here, in the background (shared with the Next.js example's
    // tests: one build per run, shared-builds.ts); pack.test.ts waits for it.
    globalSetup: ['global-setup.ts'],
  },
});
