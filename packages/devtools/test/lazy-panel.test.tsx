// @vitest-environment jsdom
/**
 * The panel's chunk failing to load (the page went offline before it came) never takes the
 * host app down: the app's own parts stay, the panel says why, and it loads once the
 * browser is back online. (With `React.lazy` and no error boundary, React unmounted the
 * whole app: the demo's composer vanished for good.)
 */
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { panelChunk } from '../src/lazy-panel.js';
import { ResumableDevtoolsPanel } from '../src/production.js';

describe('the panel chunk', () => {
  it('failing to load leaves the app drawn, says why, and loads once back online', async () => {
    const fetchChunk = panelChunk.fetch;
    let fetches = 0;
    let offline = true;
    panelChunk.fetch = () => {
      fetches++;
      return offline
        ? Promise.reject(new TypeError('Failed to fetch dynamically imported module: /panel.js'))
        : fetchChunk();
    };
    try {
      await act(async () => {
        render(
          <main>
            <textarea aria-label="Message" />
            <ResumableDevtoolsPanel />
          </main>,
        );
      });
      const notice = await screen.findByRole('status');
      expect(notice.textContent).toBe(
        'The Resumable devtools panel did not load (Failed to fetch dynamically imported module: /panel.js); it loads again once the page is back online. Retry',
      );
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
      expect(fetches).toBe(1);

      offline = false;
      await act(async () => {
        window.dispatchEvent(new Event('online'));
      });
      const panel = await screen.findByRole('region', { name: 'Resumable devtools' });
      expect(panel.textContent).toContain(
        'No conversation yet: the panel shows what a Resumable client does once one runs.',
      );
      expect(screen.queryByRole('status')).toBeNull();
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
      expect(fetches).toBe(2);
    } finally {
      panelChunk.fetch = fetchChunk;
    }
  });
});
