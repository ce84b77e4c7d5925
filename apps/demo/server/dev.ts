import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { runWithApi } from './run.js';

/** `pnpm dev`: the API server (restartable child process) and the Vite dev server. */
await runWithApi(async () => {
  const vite = await createServer({
    root: fileURLToPath(new URL('..', import.meta.url)),
    configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
  });
  await vite.listen();
  vite.printUrls();
  return vite;
});
