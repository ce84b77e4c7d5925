import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Browser,
  type BrowserContext,
  type BrowserServer,
  chromium,
  type Page,
} from 'playwright-core';
import { build, type PreviewServer, preview } from 'vite';
import { type Supervisor, superviseServer } from '../../apps/demo/server/supervisor.js';
import { CHROMIUM_LAUNCH, requireChromium } from '../../packages/ui/scripts/chromium.js';

/**
 * The e2e stack, started once per test file: the demo's API server as a real, restartable
 * child process on an ephemeral 127.0.0.1 port (SQLite in a temp dir, the scripted agent
 * tuned for long-but-fast answers), the demo app served by `vite preview` with `/api`
 * proxied to that server — the same code path as `pnpm preview` — and Chromium from Debian
 * driven by playwright-core. Under vitest the app's build and the browser are made once
 * for the whole run (`global-setup.ts`): each file gets its own server, store and preview,
 * each test its own browser contexts.
 */

export { CHROMIUM, requireChromium } from '../../packages/ui/scripts/chromium.js';

const demoDir = fileURLToPath(new URL('../../apps/demo/', import.meta.url));
export const artifactsDir = fileURLToPath(new URL('../artifacts/', import.meta.url));

/**
 * The scripted answer: 600 tokens (over 2,000 characters), 1.5 s when nothing holds it. The
 * e2e fixture holds every answer at `HOLD_MS` an event (a 12-second answer or longer: long
 * enough to break it on purpose several times even when the machine is busy, a click can
 * wait seconds for a starved renderer) until the test has broken it and seen the recovery;
 * then it lets the rest come at once (`DemoFixture.release`) instead of waiting it out.
 */
export const SCRIPT = { tokens: 600, tokensPerSecond: 400 };

/** The demo's "slow the stream" delay that holds an answer (at most 50 events a second). */
export const HOLD_MS = 20;

export interface Stack {
  /** The app, e.g. `http://127.0.0.1:41234` (its API is under `/api`). */
  appUrl: string;
  /** The API server itself, bypassing the proxy (for the test's own checks). */
  api: Supervisor;
  tmp: string;
  close(): Promise<void>;
}

/**
 * Builds the demo into `outDir` as `pnpm build` does (its vite.config.ts names every page:
 * `index.html`, `ai-sdk.html`), so a page the config leaves out is missing here too: the
 * same output whichever API server a preview later proxies to (the proxy target is read by
 * `vite preview`, not baked into the build).
 */
export async function buildDemo(outDir: string): Promise<void> {
  await build({
    root: demoDir,
    configFile: join(demoDir, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
}

/**
 * @param options.env overrides the API server's (the demo screenshots use the showcase reply).
 * @param options.dist a build of the demo made by `buildDemo` (the e2e global setup's, shared
 *   by every file); without it the stack builds its own.
 */
export async function startStack(
  options: { env?: Record<string, string>; dist?: string } = {},
): Promise<Stack> {
  requireChromium();
  const tmp = mkdtempSync(join(tmpdir(), 'resumable-e2e-'));
  const api = await superviseServer({
    port: 0,
    stdio: process.env.E2E_VERBOSE ? 'inherit' : 'ignore',
    env: {
      RESUMABLE_STORE: `sqlite:${join(tmp, 'resumable.db')}`,
      SCRIPTED_TOKENS: String(SCRIPT.tokens),
      SCRIPTED_TPS: String(SCRIPT.tokensPerSecond),
      // The plain filler reply: the tests compare its text with what the page renders.
      SCRIPTED_REPLY: 'filler',
      // No real model from the developer's shell. Unset (undefined: not passed to the
      // child), not '': `@ai-sdk/openai` builds its default provider on import and throws
      // on an empty OPENAI_BASE_URL, which killed the server at start-up.
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: undefined,
      RESUMABLE_AGENT: 'scripted',
      ...options.env,
    },
  });
  let web: PreviewServer | undefined;
  try {
    const outDir = options.dist ?? join(tmp, 'dist');
    if (!options.dist) await buildDemo(outDir);
    // vite.config.ts reads the proxy target when it loads.
    process.env.RESUMABLE_API_URL = api.origin;
    web = await preview({
      root: demoDir,
      configFile: join(demoDir, 'vite.config.ts'),
      logLevel: 'error',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
    });
  } catch (error) {
    await api.close();
    throw error;
  }
  const address = web.httpServer.address();
  if (!address || typeof address === 'string') throw new Error('preview server has no port');
  const server = web;
  return {
    appUrl: `http://127.0.0.1:${address.port}`,
    api,
    tmp,
    async close() {
      await Promise.allSettled([server.close(), api.close()]);
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless, for a script of its own (each test gets its own context). */
export async function launchChromium(): Promise<Browser> {
  requireChromium();
  return chromium.launch(CHROMIUM_LAUNCH);
}

/** The same Chromium as a server the test files connect to (`connectChromium`). */
export async function launchChromiumServer(): Promise<BrowserServer> {
  requireChromium();
  return chromium.launchServer(CHROMIUM_LAUNCH);
}

/**
 * A connection to the shared Chromium: its contexts are this file's alone and close with
 * it; closing it leaves the browser to the other files.
 */
export function connectChromium(wsEndpoint: string): Promise<Browser> {
  return chromium.connect(wsEndpoint, { timeout: 30_000 });
}

/**
 * A fresh, isolated profile (its own IndexedDB and localStorage, kept across reloads for
 * the context's lifetime): as cheap as a new tab, as separate as a new browser.
 */
export function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 1280, height: 860 },
    // The reply's "Copy message" button is how a test reads the raw text the page holds.
    permissions: ['clipboard-read', 'clipboard-write'],
  });
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`) });
}
