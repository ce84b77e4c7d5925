// Its own module: a client's first paint reads run outcomes without the whole code list.
/** Run outcomes reported through `RUN_ERROR` (its `code`). */
export const RUN_ERROR_CODES = [
  'agent_lost',
  'agent_failed',
  'upstream_failed',
  'agent_timeout',
  'run_timeout',
  'run_too_large',
  // The run's store was unreachable past the server's grace: it ended the run (protocol.md).
  'store_unavailable',
] as const;
