import { defineConfig } from 'tsdown';

/**
 * The entries that hold React hooks: their built files begin with `'use client'`, so a
 * React Server Component (a Next.js App Router `page.tsx`) can import them. The directive is
 * written here because rolldown keeps a directive only when it is in the entry module's own
 * source, and these entries have none; the framework-free entries (`core`, `interrupts`,
 * `observe`, `upload`, `ai-sdk`) stay without it, so server code can import them.
 */
const CLIENT_ENTRIES = new Set(['index', 'attachments/index', 'threads/index', 'turns/index']);

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/core/index.ts',
    'src/interrupts.ts',
    'src/observe.ts',
    'src/ai-sdk/index.ts',
    'src/attachments/index.ts',
    'src/threads/index.ts',
    'src/turns/index.ts',
    'src/upload/index.ts',
  ],
  format: 'esm',
  // Members marked @internal (the sessions' plumbing the features and the first paint use:
  // `RunSession.api`, `ChatSession.reads`…) are left out of the declarations: not public API,
  // and their types are not exported.
  dts: { compilerOptions: { stripInternal: true } },
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
  outputOptions: {
    banner: (chunk) => (chunk.isEntry && CLIENT_ENTRIES.has(chunk.name) ? "'use client';\n" : ''),
  },
});
