import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { chaos, DemoPage } from './demo-page.js';
import { connectChromium, HOLD_MS, newContext, type Stack, startStack } from './harness.js';

export interface DemoFixture {
  readonly stack: Stack;
  /** The browser context the current test opened first (closed after the test). */
  readonly context: BrowserContext;
  /** A fresh browser context, closed after the current test. */
  newContext(): Promise<BrowserContext>;
  /** The demo (or another page of it) in a fresh context. */
  openDemo(query?: string): Promise<DemoPage>;
  /**
   * Lets the held answers (see `held`) come at once: for a test that has proven what it
   * needed mid-answer, or needs no mid-answer at all, and only waits for the end.
   */
  release(): Promise<void>;
}

/**
 * One stack for a test file (its own API server, store and preview of the run's one demo
 * build) and a connection to the run's one Chromium (see `global-setup.ts`): every context a
 * test opens is closed after it, and a test that failed half-way does not leave the server
 * slowed for the next one.
 *
 * @param options.held each test starts with the server's answers held at `HOLD_MS` an event
 *   (the demo's "slow the stream"), so whatever it breaks lands mid-answer; `release()`
 *   ends the hold. Off for a file whose env sets its own pace. @default true
 */
export function useDemoStack(
  options: { env?: Record<string, string>; held?: boolean } = {},
): DemoFixture {
  const { held = true, ...stackOptions } = options;
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  const opened: BrowserContext[] = [];
  beforeAll(async () => {
    const [started, connected] = await Promise.allSettled([
      startStack({ ...stackOptions, dist: inject('demoDist') }),
      connectChromium(inject('chromiumWsEndpoint')),
    ]);
    // Whichever started is kept for afterAll to close, even when the other failed.
    if (started.status === 'fulfilled') stack = started.value;
    if (connected.status === 'fulfilled') browser = connected.value;
    for (const result of [started, connected]) {
      if (result.status === 'rejected') throw result.reason;
    }
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  beforeEach(async () => {
    if (held) await slow(fixture.stack, HOLD_MS);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((context) => context.close()));
    if (stack) await chaos(stack, 'slow', { delayMs: 0 }).catch(() => {});
  });
  const fixture: DemoFixture = {
    get stack() {
      if (!stack) throw new Error('the demo stack is not started (use it inside a test)');
      return stack;
    },
    get context() {
      const first = opened[0];
      if (!first) throw new Error('no browser context is open in this test');
      return first;
    },
    async newContext() {
      if (!browser) throw new Error('Chromium is not started (use it inside a test)');
      const context = await newContext(browser);
      opened.push(context);
      return context;
    },
    async openDemo(query = '') {
      return DemoPage.open(await fixture.newContext(), fixture.stack, query);
    },
    release: () => slow(fixture.stack, 0),
  };
  return fixture;
}

async function slow(stack: Stack, delayMs: number): Promise<void> {
  const { status, body } = await chaos(stack, 'slow', { delayMs });
  if (status !== 200)
    throw new Error(`slow ${delayMs} answered ${status}: ${JSON.stringify(body)}`);
}
