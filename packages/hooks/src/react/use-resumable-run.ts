import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import { useCallback, useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { StartedRun } from '../core/api.js';
import type { RunSession, RunSessionOptions, StartRunInput } from '../core/session.js';
import type { RunSessionState } from '../core/store.js';
import type { ConnectionInfo } from '../core/types.js';
import { useResumableClient } from './provider.js';

export interface UseResumableRunOptions extends Partial<Omit<RunSessionOptions, 'key'>> {
  /** The slot the run is persisted under (a thread id, a chat pane). */
  key: string;
}

export interface ResumableRun {
  messages: readonly RunMessage[];
  status: RunStatus;
  connection: ConnectionInfo;
  error: ResumableError | null;
  runId: string | null;
  threadId: string | null;
  /** Starts a run (POST /runs with a client-chosen runId) and follows it. */
  start(input?: StartRunInput): Promise<StartedRun>;
  /** Cancels the run on the server. */
  cancel(): Promise<void>;
  /** Reconnects now. */
  retry(): void;
  /** The session itself, for anything the hook does not expose. */
  session: RunSession;
}

/** Subscribes to a session for the component's lifetime; StrictMode-safe (deferred release). */
export function useRetained(session: { retain(): () => void }): void {
  useEffect(() => session.retain(), [session]);
}

/**
 * A resumable run: renders the persisted snapshot on mount, resumes from the persisted
 * offset, reconnects with backoff. Components using the same `key` share one session.
 */
export function useResumableRun(options: UseResumableRunOptions): ResumableRun {
  const { key, endpoint, ...overrides } = options;
  const client = useResumableClient(endpoint);
  // Options are read when the key's session is created; later changes need a new key.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  const session = useMemo(() => client.runSession(key, overrides), [client, key]);
  useRetained(session);
  // Only what the hook returns: a warning or the hydration flag alone re-renders nothing.
  const state = useStore(session.store, useShallow(selectRun));
  const start = useCallback((input?: StartRunInput) => session.start(input), [session]);
  const cancel = useCallback(() => session.cancel(), [session]);
  const retry = useCallback(() => session.retry(), [session]);
  return useMemo(
    () => ({ ...state, start, cancel, retry, session }),
    [state, start, cancel, retry, session],
  );
}

const selectRun = (state: RunSessionState) => ({
  messages: state.messages,
  status: state.status,
  connection: state.connection,
  error: state.error,
  runId: state.runId,
  threadId: state.threadId,
});
