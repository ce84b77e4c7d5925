// `@resumable/devtools`: on in development, nothing in production. As
// `@tanstack/react-query-devtools` does it, each export is the real one only when
// `process.env.NODE_ENV` is 'development' (bundlers replace it), else a stand-in that
// renders nothing (absent.ts); a production bundle then keeps none of the devtools, the
// recorder or the panel. A production build mostly never reads this file: the `production`
// export condition resolves the package to absent.ts. `@resumable/devtools/production` is
// the same, always on.
import type { ReactElement } from 'react';
import * as absent from './absent.js';
import type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';
import * as devtools from './devtools.js';

export type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';

/** `<ResumableDevtools />`: a button that opens the panel (`devtools.tsx`). */
export const ResumableDevtools: (props: ResumableDevtoolsProps) => ReactElement | null =
  process.env.NODE_ENV !== 'development' ? absent.ResumableDevtools : devtools.ResumableDevtools;

/** The panel alone, filling its container. */
export const ResumableDevtoolsPanel: (props: ResumableDevtoolsPanelProps) => ReactElement | null =
  process.env.NODE_ENV !== 'development'
    ? absent.ResumableDevtoolsPanel
    : devtools.ResumableDevtoolsPanel;

/** A TanStack Devtools plugin (`@tanstack/react-devtools`); an empty tab in production. */
export const resumableDevtoolsPlugin: (
  options?: ResumableDevtoolsPluginOptions,
) => ResumableDevtoolsPlugin =
  process.env.NODE_ENV !== 'development'
    ? absent.resumableDevtoolsPlugin
    : devtools.resumableDevtoolsPlugin;
