import { defineConfig } from 'vitest/config';

// One runner, one summary: every package and the cross-package suite are projects.
export default defineConfig({
  test: {
    projects: ['packages/*', 'test', 'test/pack', 'test/nextjs'],
    reporters: ['default'],
    // Vitest's default is one worker fewer than the cores: on this 2-core machine one file
    // at a time. The package suites are CPU-bound: two at once.
    maxWorkers: 2,
  },
});
