// Builds the static fixture page with Vite, serves it on 127.0.0.1, and photographs it in
// Chromium in both themes: docs/light.png and docs/dark.png for the README.
// Run: pnpm --filter @resumable/ui screenshot  (needs /usr/bin/chromium)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = resolve(here, 'fixture');
const docs = resolve(here, '../docs');
const outDir = mkdtempSync(join(tmpdir(), 'rc-fixture-'));

await build({
  root,
  base: './',
  configFile: false,
  logLevel: 'warn',
  plugins: [react()],
  resolve: { conditions: ['@resumable/source'] },
  build: { outDir, emptyOutDir: true },
});

const types: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
};
const server = createServer((req, res) => {
  const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
  const file = join(outDir, path === '' ? 'index.html' : path);
  if (!file.startsWith(outDir)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = readFileSync(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
const { port } = server.address() as AddressInfo;

const profile = mkdtempSync(join(tmpdir(), 'pw-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 880, height: 1180 },
  deviceScaleFactor: 1,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const page = await context.newPage();
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    // No data-theme: the colours come from the emulated prefers-color-scheme.
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForSelector('[data-message-id="u3"]');
    // Open the tool call so its arguments and result show.
    await page.click('[data-tool-call-id="c1"] > summary');
    const bg = await page.evaluate(
      () => getComputedStyle(document.querySelector('.rc-root')!).backgroundColor,
    );
    const expected = theme === 'dark' ? 'rgb(15, 15, 17)' : 'rgb(255, 255, 255)';
    if (bg !== expected) throw new Error(`${theme}: background ${bg}, expected ${expected}`);
    await page.screenshot({ path: join(docs, `${theme}.png`) });
    console.log(`wrote docs/${theme}.png`);
  }
  // data-theme beats the system preference, both ways.
  for (const [system, forced, expected] of [
    ['dark', 'light', 'rgb(255, 255, 255)'],
    ['light', 'dark', 'rgb(15, 15, 17)'],
  ] as const) {
    await page.emulateMedia({ colorScheme: system });
    await page.goto(`http://127.0.0.1:${port}/?theme=${forced}`);
    await page.waitForSelector('.rc-root');
    const bg = await page.evaluate(
      () => getComputedStyle(document.querySelector('.rc-root')!).backgroundColor,
    );
    if (bg !== expected) throw new Error(`system ${system}, data-theme ${forced}: ${bg}`);
  }
  console.log('data-theme overrides prefers-color-scheme both ways');
} finally {
  await context.close();
  server.close();
  rmSync(outDir, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
