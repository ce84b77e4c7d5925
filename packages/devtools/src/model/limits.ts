/**
 * Every bound of the devtools, once (the hooks' `defaults.ts` habit): what a conversation
 * keeps of each list, and how often the panel redraws. Older entries go first.
 */
export const LIMITS = {
  /** Conversations kept (the page's oldest go). */
  conversations: 20,
  /** Events kept per conversation (the count goes on). */
  events: 500,
  /** Timeline rows per conversation. */
  timeline: 300,
  /** Requests per conversation. */
  requests: 100,
  /** Retries per conversation. */
  retries: 50,
  /** Runs per conversation. */
  runs: 20,
  /** Outbox items shown (the client holds `maxOutbox`). */
  outbox: 50,
  /** Interrupts shown. */
  interrupts: 50,
} as const;

/**
 * The panel redraws at most this often: a stream can fold 50 batches a second, and watching
 * it must not slow down what it watches.
 */
export const REDRAW_MS = 200;
