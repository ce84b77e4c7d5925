import { act } from '@testing-library/react';
import type { ReactNode } from 'react';
import type { ManualSignal } from '../src/core/base/env.js';
import { createManualSignal } from '../src/core/base/env.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import type { RunSession } from '../src/core/run/run-session.js';
import { ResumableProvider, type ResumableRun, useResumableRun } from '../src/index.js';
import { assistantText, waitFor } from './util.js';

/**
 * A `ResumableProvider` for tests: always visible, no pagehide, warnings dropped, and an
 * online signal the test may hold (`online`) to go offline at will.
 */
export function TestProvider(props: {
  endpoint: string;
  storage: RecordStorage;
  backoff: { initialMs: number; maxMs: number };
  online?: ManualSignal;
  fetch?: typeof fetch;
  children: ReactNode;
}) {
  return (
    <ResumableProvider
      endpoint={props.endpoint}
      storage={props.storage}
      backoff={props.backoff}
      onWarning={() => {}}
      {...(props.fetch ? { fetch: props.fetch } : {})}
      env={{
        online: props.online ?? createManualSignal(true),
        visible: createManualSignal(true),
        onPageHide: () => () => {},
      }}
    >
      {props.children}
    </ResumableProvider>
  );
}

/** Hands each render's `useResumableRun({ key: 'slot' })` to `onRun` and shows its text. */
export function RunProbe(props: { onRun: (run: ResumableRun) => void }) {
  const run = useResumableRun({ key: 'slot' });
  props.onRun(run);
  return <p data-testid="text">{assistantText(run.messages)}</p>;
}

/** The hook's session once the engine (loaded by `import()` on first render) is there. */
export async function sessionOf(get: () => ResumableRun): Promise<RunSession> {
  await act(() => waitFor(() => get().session !== null, 'the engine loaded'));
  return get().session!;
}

/** Polls `check` across React commits (each poll its own act), bounded like `waitFor`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await act(() => new Promise((r) => setTimeout(r, 10)));
  }
}
