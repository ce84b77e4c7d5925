import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts'],
  format: 'esm',
  dts: true,
  platform: 'node',
  // Resolved at run time through package.json "imports" (to eventsource-parser/stream).
  external: ['#sse-stream'],
  clean: true,
});
