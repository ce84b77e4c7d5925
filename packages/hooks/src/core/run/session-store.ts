import type { RunMessage, RunState, RunStatus } from '@resumable/protocol';
import { createRunState, type ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import type { ConnectionInfo } from './connection.js';
import { initialConnection, liveConnection } from './connection.js';

/** Everything a run session shows. One object per store update; React selects from it. */
export interface RunSessionState {
  /** The session's key. */
  key: string;
  /** The run followed; null before one is started or found. */
  runId: string | null;
  /** The run's thread; null before a run. */
  threadId: string | null;
  /** The folded run (messages, tool calls, state, warnings of the fold). */
  run: RunState;
  /** `run.messages`: settled messages keep their identity while another one streams. */
  messages: readonly RunMessage[];
  /** Where the run stands: `idle`, `running`, then `finished`, `cancelled` or `error`. */
  status: RunStatus;
  /** The stream's state: its phase, offset, retries and where records are kept. */
  connection: ConnectionInfo;
  /** What stopped the session (404, 401, a failed run, retries exhausted), or null. */
  error: ResumableError | null;
  /** The most recent warnings the session survived (bad frames, corrupt records…). */
  warnings: readonly ResumableError[];
  /** True once the persisted record (if any) has been read. */
  hydrated: boolean;
  /** The user stopped this run; it is never reconnected to. */
  stopped: boolean;
}

export function createSessionStore(
  key: string,
  persistence: ConnectionInfo['persistence'],
): StoreApi<RunSessionState> {
  const run = createRunState();
  return createStore<RunSessionState>()((_set, get) => ({
    key,
    runId: null,
    threadId: null,
    run,
    messages: run.messages,
    status: run.status,
    connection: liveConnection(initialConnection(persistence), () => get().run.offset),
    error: null,
    warnings: [],
    hydrated: false,
    stopped: false,
  }));
}
