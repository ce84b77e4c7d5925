import { defineConfig } from 'tsdown';

/** The entries' JavaScript (their declaration chunks, `index.d`, take no directive). */
const CLIENT_ENTRIES = new Set(['index', 'production']);

/**
 * Both entries hold React components: their built files begin with `'use client'`, so a
 * Server Component (a Next.js layout) can render `<ResumableDevtools />`. The panel stays a
 * chunk of its own (`import()`), and `process.env.NODE_ENV` stays as written: the app's
 * bundler decides it.
 */
export default defineConfig({
  entry: ['src/index.ts', 'src/production.ts', 'src/absent.ts'],
  format: 'esm',
  dts: true,
  platform: 'neutral',
  clean: true,
  external: [/^react/, /^@resumable\//],
  outputOptions: {
    banner: (chunk) => (chunk.isEntry && CLIENT_ENTRIES.has(chunk.name) ? "'use client';\n" : ''),
  },
});
