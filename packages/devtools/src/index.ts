// `@resumable/devtools`: on in development, nothing in production. As
// `@tanstack/react-query-devtools` does it, each export is the real one only when
// `process.env.NODE_ENV` is 'development' (bundlers replace it), else a stand-in that
// renders nothing; a production bundle then keeps none of the devtools, the recorder or
// the panel. `@resumable/devtools/production` is the same, always on.
import type { ReactElement } from 'react';
import type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';
import * as devtools from './devtools.js';
import { offPlugin } from './off.js';

export type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';

/** `<ResumableDevtools />`: a button that opens the panel (`devtools.tsx`). */
export const ResumableDevtools: (props: ResumableDevtoolsProps) => ReactElement | null =
  process.env.NODE_ENV !== 'development' ? () => null : devtools.ResumableDevtools;

/** The panel alone, filling its container. */
export const ResumableDevtoolsPanel: (props: ResumableDevtoolsPanelProps) => ReactElement | null =
  process.env.NODE_ENV !== 'development' ? () => null : devtools.ResumableDevtoolsPanel;

/** A TanStack Devtools plugin (`@tanstack/react-devtools`); an empty tab in production. */
export const resumableDevtoolsPlugin: (
  options?: ResumableDevtoolsPluginOptions,
) => ResumableDevtoolsPlugin =
  process.env.NODE_ENV !== 'development' ? offPlugin : devtools.resumableDevtoolsPlugin;
