import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { runWithApi } from './run.js';

/** `pnpm preview`: the built app (`pnpm build` first) served with the API server. */
await runWithApi(async () => {
  const server = await preview({
    root: fileURLToPath(new URL('..', import.meta.url)),
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  });
  server.printUrls();
  return server;
});
