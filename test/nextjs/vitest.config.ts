import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'nextjs',
    environment: 'node',
    include: ['*.test.ts'],
    // `next build` starts here and goes on beside the other suites (shared-builds.ts).
    globalSetup: ['global-setup.ts'],
    // Real Chromium against `next start`, answers paced in real time: every wait inside the
    // tests is bounded on its own. The first hook also waits for the build.
    testTimeout: 90_000,
    hookTimeout: 9 * 60_000,
    maxWorkers: 1,
    // After the package suites and the demo's browser files (test/vitest.config.ts): by
    // then the build has had their whole run to finish, and no two browser files overlap.
    sequence: { groupOrder: 2 },
  },
});
