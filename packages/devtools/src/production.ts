// `@resumable/devtools/production`: the devtools in any build — a staging site, the demo's
// production build — where `@resumable/devtools` would render nothing.
export type {
  ResumableDevtoolsPanelProps,
  ResumableDevtoolsPlugin,
  ResumableDevtoolsPluginOptions,
  ResumableDevtoolsProps,
} from './devtools.js';
export { ResumableDevtools, ResumableDevtoolsPanel, resumableDevtoolsPlugin } from './devtools.js';
