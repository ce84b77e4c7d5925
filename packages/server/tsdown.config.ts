import { defineConfig } from 'tsdown';

export default defineConfig({
  // One file per public entry: `@resumable/server` and `@resumable/server/ai-sdk`.
  entry: { index: 'src/index.ts', 'ai-sdk/index': 'src/ai-sdk/index.ts' },
  format: 'esm',
  dts: true,
  platform: 'node',
  clean: true,
});
