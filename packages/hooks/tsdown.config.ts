import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/core/index.ts'],
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
  external: ['react', 'zustand', 'idb-keyval', 'eventsource-parser', '@resumable/protocol'],
});
