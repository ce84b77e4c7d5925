import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@resumable/source'] },
  ssr: { resolve: { conditions: ['@resumable/source'] } },
  test: {
    name: 'e2e',
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    // One demo build and one Chromium for the whole run (each file its own stack).
    globalSetup: ['e2e/global-setup.ts'],
    // Real Chromium against a real server: generous bounds for a busy 2-core machine. Every
    // wait inside the tests is bounded on its own.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // One browser file at a time, after the package suites (their own group, so neither
    // starves the other's timing-sensitive tests). Two side by side saved ~2 minutes but, in
    // 2 of 4 fresh runs on the idle 2-core machine, one file's IndexedDB writes or tab
    // hand-over ran late enough to fail a test: a flaky suite costs more than the minutes.
    maxWorkers: 1,
    // One worker process for every browser file, its imports (playwright-core, vite, the
    // kit) loaded once: each file still makes its own stack and contexts (fixture.ts), and
    // the helpers they share hold no state between files.
    isolate: false,
    sequence: { groupOrder: 1 },
  },
});
