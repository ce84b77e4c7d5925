import { defineConfig } from 'vitest/config';

// One runner, one summary: every package and the cross-package suite are projects.
export default defineConfig({
  test: {
    projects: ['packages/*', 'test'],
    reporters: ['default'],
  },
});
