import { fileURLToPath } from 'node:url';
import { preview } from 'vite';
import { printReady, runWithApi, webPort } from './run.js';

/** `pnpm preview`: the built app (`pnpm build` first) served with the API server. */
const port = webPort(4173);
await runWithApi({
  port,
  async start(api) {
    const server = await preview({
      root: fileURLToPath(new URL('..', import.meta.url)),
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      preview: { port },
    });
    printReady(server.resolvedUrls?.local[0] ?? `http://localhost:${port}/`, api);
    return server;
  },
});
