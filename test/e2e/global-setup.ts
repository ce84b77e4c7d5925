import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDemo, launchChromiumServer, requireChromium } from './harness.js';

/**
 * Made once per run, not once per file: the demo's build (the same for every file: each
 * still serves it from its own preview, proxied to its own API server and store) and one
 * Chromium that the files connect to (each test still opens its own contexts). A missing
 * Chromium fails the run here, before any file starts.
 */
export default async function setup(project: TestProject) {
  requireChromium();
  const tmp = mkdtempSync(join(tmpdir(), 'resumable-e2e-build-'));
  const dist = join(tmp, 'dist');
  const [launched, built] = await Promise.allSettled([launchChromiumServer(), buildDemo(dist)]);
  if (launched.status === 'rejected' || built.status === 'rejected') {
    if (launched.status === 'fulfilled') await launched.value.close();
    rmSync(tmp, { recursive: true, force: true });
    throw launched.status === 'rejected'
      ? launched.reason
      : (built as PromiseRejectedResult).reason;
  }
  const browser = launched.value;
  project.provide('chromiumWsEndpoint', browser.wsEndpoint());
  project.provide('demoDist', dist);
  return async () => {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's endpoint for `connectChromium`. */
    chromiumWsEndpoint: string;
    /** The demo built once for every file (`buildDemo`). */
    demoDist: string;
  }
}
