import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { printReady, runWithApi } from './run.js';

/** `pnpm preview`: the built app (`pnpm build` first) served with the API server. */
await runWithApi(async (api) => {
  const server = await preview({
    root: fileURLToPath(new URL('..', import.meta.url)),
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  });
  printReady(server.resolvedUrls?.local[0] ?? 'http://localhost:4173/', api);
  return server;
});
