// Debian's Chromium as every browser script and test here launches it: the UI's fixture
// page (screenshots, its Chromium test) and the root e2e suite (test/e2e/harness.ts) import
// this one module, so the path and flags cannot drift apart.
import { existsSync } from 'node:fs';
import type { LaunchOptions } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, with the flags that work on this kind of machine (toolchain.md). */
export const CHROMIUM_LAUNCH: LaunchOptions = {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/** Fails (never skips) when Chromium is missing, and says how to install it. */
export function requireChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const hint =
    `Chromium not found at ${CHROMIUM}. The browser tests drive a real browser: install it with\n` +
    '  sudo apt-get install -y chromium\n' +
    '(or set CHROMIUM_PATH to a Chromium/Chrome binary).';
  console.error(hint);
  throw new Error(hint);
}
