import type { TestProject } from 'vitest/node';
import { requireChromium } from '../e2e/harness.js';
import { startBuilds } from '../shared-builds.js';

/**
 * The Next.js example's production build, started now in the background (after the
 * packages' build it imports), while the other suites run; `nextjs.test.ts` waits for it.
 * A missing Chromium fails the run here, before anything is built.
 */
export default function setup(project: TestProject) {
  requireChromium();
  const { dir, teardown } = startBuilds(['nextjs']);
  project.provide('sharedBuilds', dir);
  return teardown;
}
