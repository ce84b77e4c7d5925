import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/thread-list.tsx'],
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
});
