import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { printReady, runWithApi } from './run.js';

/** `pnpm dev`: the API server (restartable child process) and the Vite dev server. */
await runWithApi(async (api) => {
  const vite = await createServer({
    root: fileURLToPath(new URL('..', import.meta.url)),
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  });
  await vite.listen();
  // The app's URL, last and alone: the API's own URL answers JSON 404s to a browser.
  printReady(vite.resolvedUrls?.local[0] ?? `http://localhost:${vite.config.server.port}/`, api);
  return vite;
});
