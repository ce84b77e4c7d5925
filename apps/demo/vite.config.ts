import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { createLogger, defaultClientConditions, defineConfig, type ProxyOptions } from 'vite';

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

// While the API server restarts (the chaos button), every proxied request fails: say so
// once every few seconds instead of printing a stack trace per request.
const logger = createLogger();
const logError = logger.error.bind(logger);
let lastProxyNotice = 0;
logger.error = (message, options) => {
  if (!message.includes('http proxy error')) return logError(message, options);
  if (Date.now() - lastProxyNotice > 5000) {
    logger.warn(`API server at ${apiTarget} unreachable (restarting?): answering 502`, {
      timestamp: true,
    });
  }
  lastProxyNotice = Date.now();
};

export default defineConfig({
  customLogger: logger,
  plugins: [react()],
  // Workspace packages resolve to their TypeScript sources: edits in packages/* show up
  // in the demo at once, with no build step.
  resolve: { conditions: ['@resumable/source', ...defaultClientConditions] },
  server: { port: 5173, strictPort: true, proxy: { '/api': apiProxy } },
  preview: { port: 4173, strictPort: true, proxy: { '/api': apiProxy } },
  build: {
    sourcemap: true,
    chunkSizeWarningLimit: 800,
    // Every page: the demo, the AI SDK's `useChat` page (`pnpm build` built only the first),
    // and the devtools in the TanStack Devtools shell.
    rolldownOptions: {
      input: {
        main: fileURLToPath(new URL('index.html', import.meta.url)),
        'ai-sdk': fileURLToPath(new URL('ai-sdk.html', import.meta.url)),
        tanstack: fileURLToPath(new URL('tanstack.html', import.meta.url)),
      },
    },
  },
});
