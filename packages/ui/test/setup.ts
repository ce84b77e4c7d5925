// jsdom lacks the layout APIs use-stick-to-bottom and the browser would give: minimal stubs,
// enough for the components to mount (jsdom does no layout, so sizes are all 0 anyway).
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

class ResizeObserverStub {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver ??= ResizeObserverStub as unknown as typeof ResizeObserver;

if (typeof window !== 'undefined' && !globalThis.matchMedia) {
  globalThis.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener() {},
      removeEventListener() {},
      addListener() {},
      removeListener() {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// Guarded: the server-rendering test runs in the node environment, with no DOM.
if (typeof Element !== 'undefined') Element.prototype.scrollTo ??= function scrollTo() {};

// React 19 warns about act() unless the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

afterEach(() => {
  cleanup();
});
