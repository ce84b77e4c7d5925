import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/core/index.ts',
    'src/interrupts.ts',
    'src/ai-sdk/index.ts',
    'src/attachments/index.ts',
    'src/threads/index.ts',
    'src/upload/index.ts',
  ],
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
  // Dependencies stay imports (zustand and react by subpath too).
  external: [
    /^react/,
    /^zustand/,
    'ai',
    /^@ai-sdk\//,
    'idb-keyval',
    'eventsource-parser',
    /^@resumable\//,
  ],
});
