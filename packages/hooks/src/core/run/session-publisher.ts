import type { RunState } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { MAX_SESSION_WARNINGS } from '../base/defaults.js';
import type { ConnectionInfo } from './connection.js';
import { liveConnection } from './connection.js';
import type { RunSessionState } from './session-store.js';

/**
 * The session's writes to its store that are not the run itself: connection facts (one
 * object until a fact other than the offset changes) and warnings (bounded).
 */
export class SessionPublisher {
  constructor(
    private readonly store: StoreApi<RunSessionState>,
    private readonly onWarning: ((warning: ResumableError) => void) | undefined,
  ) {}

  setConnection(patch: Partial<ConnectionInfo>): void {
    const connection = this.nextConnection(patch);
    if (connection !== this.store.getState().connection) this.store.setState({ connection });
  }

  /** The current connection with `patch` applied: the same object when nothing changed. */
  nextConnection(patch: Partial<ConnectionInfo>): ConnectionInfo {
    const connection = this.store.getState().connection;
    let changed = false;
    for (const key in patch) {
      // `offset` is not a fact of its own: it reads the store's resume point.
      if (key === 'offset') continue;
      if (connection[key as keyof ConnectionInfo] !== patch[key as keyof ConnectionInfo])
        changed = true;
    }
    if (!changed) return connection;
    return liveConnection({ ...connection, ...patch }, () => this.store.getState().run.offset);
  }

  /** The fold's new warnings (since `before`) as the session's typed warnings. */
  noteFoldWarnings(before: RunState, after: RunState): void {
    const fresh = after.warningCount - before.warningCount;
    if (fresh <= 0) return;
    for (const w of after.warnings.slice(-Math.min(fresh, after.warnings.length))) {
      this.warn(
        new ResumableError(
          w.code,
          w.offset === null ? w.message : `offset ${w.offset}: ${w.message}`,
        ),
      );
    }
  }

  warn(warning: ResumableError): void {
    const warnings = [...this.store.getState().warnings, warning].slice(-MAX_SESSION_WARNINGS);
    this.store.setState({ warnings });
    if (this.onWarning) this.onWarning(warning);
    else console.warn(`[resumable] ${warning.code}: ${warning.message}`);
  }
}
