import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/core/index.ts'],
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
  // Dependencies stay imports; `#sse-parser` is this package's alias of eventsource-parser
  // (see src/core/sse-parser.d.ts) and resolves through package.json "imports".
  external: [
    /^react/,
    /^zustand/,
    'idb-keyval',
    'eventsource-parser',
    /^@resumable\//,
    '#sse-parser',
  ],
});
