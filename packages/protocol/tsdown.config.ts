import { defineConfig } from 'tsdown';

export default defineConfig({
  // `patch` is an entry of its own so a client can `import()` JSON Patch support lazily, and
  // dist mirrors src file by file: a bundled chunk shared by both entries would put the
  // patch code back on every importer's first paint.
  entry: ['src/index.ts', 'src/patch.ts'],
  unbundle: true,
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
});
