// Builds the static fixture page (scripts/fixture) with Vite and serves it on 127.0.0.1:
// shared by the screenshot script and the Chromium test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { type BrowserContext, chromium } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_LAUNCH, requireChromium } from './chromium.js';

const here = fileURLToPath(new URL('.', import.meta.url));

export interface FixtureServer {
  /** e.g. `http://127.0.0.1:41234/` */
  url: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
};

/** A request listener serving the files of a built page (`index.html` at `/`). */
export function staticFiles(outDir: string): RequestListener {
  return (req, res) => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    const file = join(outDir, path === '' ? 'index.html' : path);
    if (!file.startsWith(outDir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  };
}

export async function serveFixture(): Promise<FixtureServer> {
  const outDir = mkdtempSync(join(tmpdir(), 'rc-fixture-'));
  await build({
    root: resolve(here, 'fixture'),
    base: './',
    configFile: false,
    logLevel: 'error',
    plugins: [react()],
    resolve: { conditions: ['@resumable/source'] },
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  });
  const server = createServer(staticFiles(outDir));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await new Promise<void>((ok) => server.close(() => ok()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium (`chromium.ts`) on a fresh profile, at this viewport. */
export async function launchChromium(viewport: {
  width: number;
  height: number;
}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), 'pw-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM_LAUNCH,
    viewport,
    deviceScaleFactor: 1,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
