// @vitest-environment jsdom
/**
 * The browser's page-hide signal (`createEnvironment().onPageHide`), on real jsdom events:
 * the run record's throttled write is flushed on it (session.ts), so a reload right after
 * keeps the last resume point.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEnvironment } from './env.js';

let visibility: 'visible' | 'hidden' = 'visible';
Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
afterEach(() => {
  visibility = 'visible';
});

const setVisibility = (to: 'visible' | 'hidden') => {
  visibility = to;
  document.dispatchEvent(new Event('visibilitychange'));
};

describe('onPageHide in the browser', () => {
  it('fires on pagehide and on visibilitychange to hidden, not to visible; off stops both', () => {
    const heard: string[] = [];
    let cause = '';
    const off = createEnvironment().onPageHide(() => heard.push(cause));

    cause = 'pagehide';
    window.dispatchEvent(new Event('pagehide'));
    cause = 'shown';
    setVisibility('visible');
    cause = 'hidden';
    setVisibility('hidden');
    expect(heard).toEqual(['pagehide', 'hidden']);

    off();
    cause = 'after off';
    window.dispatchEvent(new Event('pagehide'));
    setVisibility('hidden');
    expect(heard).toEqual(['pagehide', 'hidden']);
  });
});
