import type { ErrorCode } from './error-codes.js';

/**
 * What a client does about an error, decided once for every path (event stream, snapshot,
 * start, cancel, history, outbox) and the UI:
 * - `retry`: try again after the retry policy's delay (transient: network, 5xx, 429, a
 *   timeout, an answer that is not the server's);
 * - `snapshot`: the resume point is no longer servable: load `GET /runs/{id}` instead;
 * - `stop`: only the user can change this (auth, a bad request, the run's own failure);
 * - `forget`: the server no longer knows the run (its own 404): clear the persisted record.
 */
export type ErrorAction = 'retry' | 'snapshot' | 'stop' | 'forget';

/** The action for each code (`errorAction` reads it). */
export const ERROR_ACTIONS: Readonly<Record<ErrorCode, ErrorAction>> = {
  bad_request: 'stop',
  unauthorized: 'stop',
  forbidden: 'stop',
  run_not_found: 'forget',
  thread_not_found: 'forget',
  offset_expired: 'snapshot',
  offset_ahead: 'snapshot',
  payload_too_large: 'stop',
  too_many_requests: 'retry',
  // As a 503, retried; as a run's RUN_ERROR the run is over (a terminal state, not acted on).
  store_unavailable: 'retry',
  unsupported_media_type: 'stop',
  // The prompt waits for the running run the body names, then goes out (the chat's outbox).
  run_in_progress: 'retry',
  method_not_allowed: 'stop',
  // Someone else answered first: show their answer (the thread's snapshot), never re-send.
  interrupt_answered: 'stop',
  message_not_found: 'stop',
  file_not_found: 'stop',
  internal: 'retry',
  not_found: 'stop',
  agent_lost: 'stop',
  agent_failed: 'stop',
  upstream_failed: 'stop',
  agent_timeout: 'stop',
  run_timeout: 'stop',
  run_too_large: 'stop',
  // Stream faults: reconnect from the resume point, which the fold kept exact.
  malformed_event: 'retry',
  unknown_event: 'retry',
  offset_gap: 'retry',
  event_after_terminal: 'retry',
  bad_patch: 'retry',
  network: 'retry',
  stalled: 'retry',
  corrupt_record: 'forget',
  storage_unavailable: 'retry',
  aborted: 'retry',
  timeout: 'retry',
  bad_snapshot: 'retry',
  unexpected_response: 'retry',
  // The end of bounded retries against a server that makes no progress.
  no_progress: 'stop',
  event_too_large: 'retry',
};

/** The action for an error (see `ERROR_ACTIONS`); a status alone (408, 425, 5xx) never stops. */
export function errorAction(error: { code: ErrorCode }): ErrorAction {
  return ERROR_ACTIONS[error.code] ?? 'retry';
}
