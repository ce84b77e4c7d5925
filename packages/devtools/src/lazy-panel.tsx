import type { ReactElement } from 'react';
import { useCallback, useEffect, useState } from 'react';
import type { DevtoolsPanelProps } from './panel/panel.js';

type PanelModule = typeof import('./panel/panel.js');

/**
 * The panel's own chunk, fetched the first time a panel is shown. Not `React.lazy`: a lazy
 * component whose `import()` fails (the page went offline before the chunk came) throws
 * into the host app's tree, where with no error boundary React unmounts the whole app —
 * the devtools took the chat down with them — and it stays failed for good. Here a failed
 * fetch is forgotten: the panel says so, and fetches again when the browser is back
 * online, on its Retry, or when it is mounted again.
 */
let loaded: PanelModule | null = null;
let pending: Promise<PanelModule> | null = null;

/** How the chunk is fetched (a test fails it, as a page that went offline does). */
export const panelChunk = {
  fetch: (): Promise<PanelModule> => import('./panel/panel.js'),
};

function load(): Promise<PanelModule> {
  pending ??= panelChunk.fetch().then(
    (m) => (loaded = m),
    (error: unknown) => {
      pending = null;
      throw error;
    },
  );
  return pending;
}

/** The panel once its chunk is there; until then nothing, or why it did not load. */
export function LazyPanel(props: DevtoolsPanelProps): ReactElement | null {
  const [panel, setPanel] = useState(loaded);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each attempt fetches again
  useEffect(() => {
    if (panel) return;
    let live = true;
    load().then(
      (m) => live && setPanel(m),
      (error: unknown) => live && setFailure(String((error as Error)?.message ?? error)),
    );
    return () => {
      live = false;
    };
  }, [panel, attempt]);
  const again = useCallback(() => {
    setFailure(null);
    setAttempt((n) => n + 1);
  }, []);
  useEffect(() => {
    if (failure === null) return;
    window.addEventListener('online', again);
    return () => window.removeEventListener('online', again);
  }, [failure, again]);
  if (panel) return <panel.default {...props} />;
  if (failure === null) return null;
  return (
    <p role="status" style={{ margin: 0, padding: 8, font: '12px/1.4 ui-monospace, monospace' }}>
      The Resumable devtools panel did not load ({failure}); it loads again once the page is back
      online.{' '}
      <button type="button" onClick={again}>
        Retry
      </button>
      {props.onClose ? (
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      ) : null}
    </p>
  );
}
