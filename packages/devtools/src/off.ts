import { createElement, Fragment } from 'react';
import type { ResumableDevtoolsPlugin } from './devtools.js';

/**
 * `resumableDevtoolsPlugin()` where the devtools are off: a tab that renders nothing. A
 * module of its own, so an app that does not use the plugin keeps none of it.
 */
export function offPlugin(): ResumableDevtoolsPlugin {
  return {
    id: 'resumable',
    name: 'Resumable',
    defaultOpen: false,
    render: () => createElement(Fragment),
  };
}
