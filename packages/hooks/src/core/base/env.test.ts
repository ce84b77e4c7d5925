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

describe('onFreeze in the browser', () => {
  /** A page-transition event (jsdom has no PageTransitionEvent constructor of its own). */
  const transition = (type: 'pagehide' | 'pageshow', persisted: boolean) =>
    Object.assign(new Event(type), { persisted });

  it('freeze and a persisted pagehide freeze; resume and a persisted pageshow resume; off stops all', () => {
    const heard: string[] = [];
    let cause = '';
    const off = createEnvironment().onFreeze((frozen) => heard.push(`${cause}:${frozen}`));

    cause = 'freeze';
    document.dispatchEvent(new Event('freeze'));
    cause = 'resume';
    document.dispatchEvent(new Event('resume'));
    cause = 'unload';
    window.dispatchEvent(transition('pagehide', false)); // an unload, not the bfcache
    cause = 'bfcache';
    window.dispatchEvent(transition('pagehide', true));
    cause = 'first show';
    window.dispatchEvent(transition('pageshow', false));
    cause = 'back';
    window.dispatchEvent(transition('pageshow', true));
    expect(heard).toEqual(['freeze:true', 'resume:false', 'bfcache:true', 'back:false']);

    off();
    cause = 'after off';
    document.dispatchEvent(new Event('freeze'));
    window.dispatchEvent(transition('pagehide', true));
    document.dispatchEvent(new Event('resume'));
    window.dispatchEvent(transition('pageshow', true));
    expect(heard).toEqual(['freeze:true', 'resume:false', 'bfcache:true', 'back:false']);
  });
});
