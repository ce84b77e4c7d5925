import type { TestProject } from 'vitest/node';
import { startBuilds } from '../shared-builds.js';

/** The packages' build, started now in the background; `pack.test.ts` waits for it. */
export default function setup(project: TestProject) {
  const { dir, teardown } = startBuilds(['packages']);
  project.provide('sharedBuilds', dir);
  return teardown;
}
