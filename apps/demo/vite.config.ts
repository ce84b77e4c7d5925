import type { IncomingMessage, ServerResponse } from 'node:http';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type ProxyOptions } from 'vite';

/**
 * The API server the `/api` proxy points at. `server/dev.ts` and `server/preview.ts` set it
 * to the server they started; a bare `vite` uses the `pnpm server` default.
 */
const apiTarget = process.env.RESUMABLE_API_URL ?? 'http://127.0.0.1:8787';

const apiProxy: ProxyOptions = {
  target: apiTarget,
  configure(proxy) {
    // When the API server dies mid-stream (the "restart" chaos button, a crash), the
    // upstream response is cut without its final chunk. Cut the browser's response too,
    // or the page would keep waiting on a stream nobody feeds until stall detection fires.
    proxy.on('proxyRes', (proxyRes: IncomingMessage, _req, res: ServerResponse) => {
      proxyRes.on('close', () => {
        if (!proxyRes.complete) res.destroy();
      });
    });
  },
};

export default defineConfig({
  plugins: [react()],
  // Workspace packages resolve to their TypeScript sources: edits in packages/* show up
  // in the demo at once, with no build step.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  server: { port: 5173, strictPort: true, proxy: { '/api': apiProxy } },
  preview: { port: 4173, strictPort: true, proxy: { '/api': apiProxy } },
  build: { sourcemap: true },
});
