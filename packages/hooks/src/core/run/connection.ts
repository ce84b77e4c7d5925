import type { ErrorCode, RunState } from '@resumable/protocol';
import { ResumableError, RUN_ERROR_CODES } from '@resumable/protocol';
import type { ConnectionInfo } from '../chat/types.js';

export function initialConnection(persistence: ConnectionInfo['persistence']): ConnectionInfo {
  return {
    phase: 'idle',
    attempt: 0,
    nextRetryAt: null,
    lastError: null,
    caughtUp: 0,
    resumes: 0,
    offset: 0,
    persistence,
  };
}

/** A run that ended in RUN_ERROR, as the typed error the UI shows. */
export function runErrorOf(run: RunState): ResumableError | null {
  if (run.status !== 'error' || run.error === null) return null;
  const code = run.error.code;
  return new ResumableError(
    (RUN_ERROR_CODES as readonly string[]).includes(code ?? '')
      ? (code as ErrorCode)
      : 'agent_failed',
    run.error.message,
  );
}
