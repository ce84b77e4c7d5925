/**
 * The names of the `CUSTOM` events on a thread's event stream (`GET /threads/{id}/events`,
 * docs/protocol.md): the server announces them, clients follow them. Named once here for
 * both.
 */
export const THREAD_EVENTS = {
  /** A run started in the thread: `{runId, messages, parentMessageId?, resume?}`. */
  runStarted: 'resumable.run_started',
  /** A run's terminal event is stored: `{runId, status, outcome?, error?}`. */
  runEnded: 'resumable.run_ended',
  /**
   * The thread's history changed other than by a run: `{reason: 'renamed', title}` or
   * `{reason: 'deleted'}` (the stream's last event).
   */
  historyChanged: 'resumable.history_changed',
} as const;
