import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { ensurePortFree } from './port-in-use.js';
import { printReady, runWithApi, webPort } from './run.js';

/** `pnpm dev`: the API server (restartable child process) and the Vite dev server. */
const port = webPort(5173);
await runWithApi({
  port,
  async start(api) {
    await ensurePortFree(port);
    const vite = await createServer({
      root: fileURLToPath(new URL('..', import.meta.url)),
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      server: { port },
    });
    try {
      await vite.listen();
    } catch (error) {
      await vite.close();
      throw error;
    }
    // The app's URL, last and alone: the API's own URL answers JSON 404s to a browser.
    printReady(vite.resolvedUrls?.local[0] ?? `http://localhost:${port}/`, api);
    return vite;
  },
});
