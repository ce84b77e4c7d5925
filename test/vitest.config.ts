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
    // A browser file spends most of its time waiting on a 12 s scripted answer, not on the
    // CPU: two run side by side (three made the tabs' 1 s leader hand-over flaky on a busy
    // machine), after the package suites (their own group, so neither starves the other's
    // timing-sensitive tests).
    maxWorkers: 2,
    sequence: { groupOrder: 1 },
  },
});
