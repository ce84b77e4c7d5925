import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import { useCallback, useMemo } from 'react';
import { storedRunOf } from '../core/client/first-paint.js';
import type { StartedRun } from '../core/net/run-api.js';
import type { ConnectionInfo } from '../core/run/connection.js';
import { initialConnection } from '../core/run/connection.js';
import type { RunSession, RunSessionOptions, StartRunInput } from '../core/run/run-session.js';
import type { RunSessionState } from '../core/run/session-store.js';
import { useClientHandle, useEngine, useRetained } from './provider.js';
import { useSlice, useStoredRecords } from './use-stored.js';

export { useRetained } from './provider.js';

/** What `useResumableRun` takes: any session option, and the key the run is persisted under. */
export interface UseResumableRunOptions extends Partial<Omit<RunSessionOptions, 'key'>> {
  /** The slot the run is persisted under (a thread id, a chat pane). */
  key: string;
}

/** What `useResumableRun` returns: the run as it stands, and its commands. */
export interface ResumableRun {
  /** The run's messages as folded so far (the stored ones first, on a reload). */
  messages: readonly RunMessage[];
  /** `idle` before a run, `running`, then how it ended: `finished`, `cancelled` or `error`. */
  status: RunStatus;
  /** The stream's state: its phase, offset, retries and where records are kept. */
  connection: ConnectionInfo;
  /** Why the run or the connection failed (a typed `code`); null while all is well. */
  error: ResumableError | null;
  /** The run followed, once started or found in the stored record; null before. */
  runId: string | null;
  /** The run's thread; null before a run. */
  threadId: string | null;
  /** False until the persisted record has been read (show nothing rather than an empty run). */
  hydrated: boolean;
  /** Starts a run (POST /runs with a client-chosen runId) and follows it. */
  start(input?: StartRunInput): Promise<StartedRun>;
  /** Cancels the run on the server. */
  cancel(): Promise<void>;
  /** Reconnects now (or loads the engine again after its load failed). */
  retry(): void;
  /**
   * The session itself, for anything the hook does not expose; null until the engine has
   * loaded (the first paint shows the stored run without it).
   */
  session: RunSession | null;
}

/**
 * A resumable run: renders the persisted snapshot on mount, resumes from the persisted
 * offset, reconnects with backoff. Components using the same `key` share one session. The
 * stored run shows before the engine (`RunSession`) has loaded; commands called meanwhile
 * wait for it.
 */
export function useResumableRun(options: UseResumableRunOptions): ResumableRun {
  const { key, endpoint, ...overrides } = options;
  const handle = useClientHandle(endpoint);
  const engine = useEngine(handle);
  const stored = useStoredRecords(handle, key);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a client once the engine loaded
  const client = useMemo(() => handle.client(), [handle, engine.loaded]);
  // Options are read when the key's session is created; later changes need a new key.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  const session = useMemo(() => client && handle.run(client, key, overrides), [client, key]);
  useRetained(session);
  // Only what the hook returns: a warning alone re-renders nothing.
  const live = useSlice(session?.store ?? null, selectRun);
  // biome-ignore lint/correctness/useExhaustiveDependencies: options are read with the key
  const withRun = useCallback(
    <T>(action: (run: RunSession) => T | Promise<T>) => handle.withRun(key, overrides, action),
    [handle, key],
  );
  const start = useCallback((input?: StartRunInput) => withRun((s) => s.start(input)), [withRun]);
  const cancel = useCallback(() => withRun((s) => s.cancel()), [withRun]);
  const retry = useCallback(() => {
    if (handle.getState().error) handle.retry();
    else void withRun((s) => s.retry()).catch(() => {});
  }, [handle, withRun]);
  const state = useMemo(() => {
    if (live?.hydrated) return live;
    const run = stored ? storedRunOf(stored.run) : null;
    return {
      messages: run?.messages ?? [],
      status: run?.status ?? 'idle',
      connection: initialConnection(handle.persistence()),
      error: engine.error ?? run?.error ?? null,
      runId: run?.runId ?? null,
      threadId: run?.threadId ?? null,
      hydrated: run !== null,
    };
  }, [live, stored, engine, handle]);
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
  hydrated: state.hydrated,
});
