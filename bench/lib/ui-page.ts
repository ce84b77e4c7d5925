/**
 * The page `pnpm bench ui` measures: bench/ui-page built by Vite for production, served with
 * the Resumable API under `/api` from one Node server on 127.0.0.1 (one origin, as an app
 * ships it), its agent streaming a fixed answer at a fixed pace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventType } from '@resumable/protocol';
import { type Agent, createResumableHandler, toNodeListener } from '@resumable/server';
import react from '@vitejs/plugin-react';
import { build, defaultClientConditions } from 'vite';
import { staticFiles } from '../../packages/ui/scripts/fixture-server.js';
import { answerTokens } from './showcase-answer.js';

const pageDir = fileURLToPath(new URL('../ui-page/', import.meta.url));

export interface BenchSite {
  /** e.g. `http://127.0.0.1:41234/` */
  url: string;
  close(): Promise<void>;
}

/**
 * An agent that answers every prompt with `answer`, one word (and the space after it) per
 * `TEXT_MESSAGE_CONTENT`, `tokensPerSecond` of them a second, paced against its start so
 * timer lateness does not add up.
 */
export function pacedAgent(answer: string, tokensPerSecond: number): Agent {
  const tokens = answerTokens(answer);
  return async function* paced(input, { signal }) {
    const messageId = `msg-${input.runId}`;
    yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
    const started = performance.now();
    for (const [i, delta] of tokens.entries()) {
      const wait = started + (i * 1000) / tokensPerSecond - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal.aborted) return;
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
    }
    yield { type: EventType.TEXT_MESSAGE_END, messageId };
  };
}

/**
 * Builds the page (production; `minify: false` keeps function names and adds source maps,
 * for a profile) and serves it with the API on one ephemeral port.
 */
export async function serveBenchSite(
  agent: Agent,
  { minify = true }: { minify?: boolean } = {},
): Promise<BenchSite> {
  const outDir = mkdtempSync(join(tmpdir(), 'rc-bench-ui-'));
  await build({
    root: pageDir,
    base: './',
    configFile: false,
    logLevel: 'error',
    mode: 'production',
    plugins: [react()],
    resolve: { conditions: ['@resumable/source', ...defaultClientConditions] },
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4000, minify, sourcemap: !minify },
  });
  const api = createResumableHandler({
    agent,
    store: 'memory',
    basePath: '/api',
    // One browser on 127.0.0.1: toNodeListener's requests carry no socket address.
    clientAddress: () => '127.0.0.1',
  });
  await api.ready;
  const apiListener = toNodeListener(api);
  const files = staticFiles(outDir);
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/')) void apiListener(req, res);
    else files(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
