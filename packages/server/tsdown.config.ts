import { defineConfig } from 'tsdown';

export default defineConfig({
  // One file per public entry: `@resumable/server`, `/ai-sdk` and `/testing`.
  entry: {
    index: 'src/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    testing: 'src/testing.ts',
  },
  format: 'esm',
  dts: true,
  platform: 'node',
  clean: true,
});
