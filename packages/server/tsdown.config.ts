import { defineConfig } from 'tsdown';

export default defineConfig({
  // One file per public entry: `@resumable/server`, `/ai-sdk` and `/testing`.
  entry: {
    index: 'src/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    testing: 'src/testing.ts',
  },
  format: 'esm',
  // Members marked @internal (the manager's and the Redis store's own plumbing, used by the
  // routes and the store's parts) are left out of the declarations: not public API.
  dts: { compilerOptions: { stripInternal: true } },
  platform: 'node',
  clean: true,
});
