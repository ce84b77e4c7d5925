// The devtools where they are off: what `@resumable/devtools` is in a production build.
// The bundler's `production` export condition (Vite, webpack, Next.js and Rollup's
// node-resolve set it for a production build) picks this file instead of index.ts, so the
// build never sees the recorder, the panel or the `import()` of the panel's chunk (behind a
// NODE_ENV check alone, esbuild still writes that chunk, unreachable, to the output).
// index.ts uses the same stand-ins when NODE_ENV is not 'development'. Each is the smallest
// thing React renders as nothing; no 'use client', as none holds a hook: a Server Component
// renders them on the server and the browser gets no module for them. The plugin's stand-in
// is a module of its own (off.ts), so an app that does not use it keeps none of it.
import type { ReactElement } from 'react';
import type { ResumableDevtoolsPanelProps, ResumableDevtoolsProps } from './devtools.js';

export type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';

/** `<ResumableDevtools />` where the devtools are off: renders nothing. */
export const ResumableDevtools: (props: ResumableDevtoolsProps) => ReactElement | null = () => null;

/** `<ResumableDevtoolsPanel />` where the devtools are off: renders nothing. */
export const ResumableDevtoolsPanel: (props: ResumableDevtoolsPanelProps) => ReactElement | null =
  () => null;

/** `resumableDevtoolsPlugin()` where the devtools are off: a tab that renders nothing. */
export { offPlugin as resumableDevtoolsPlugin } from './off.js';
