/**
 * The names of the `CUSTOM` events on a thread's event stream (`GET /threads/{id}/events`,
 * docs/protocol.md): the server announces them, clients follow them. Named once here for
 * both.
 */
export const THREAD_EVENTS = {
  runStarted: 'resumable.run_started',
  runEnded: 'resumable.run_ended',
  historyChanged: 'resumable.history_changed',
} as const;
