import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'thread-list': 'src/thread-list.tsx',
    turns: 'src/turns.tsx',
    'interrupts/index': 'src/interrupts/index.ts',
  },
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
});
