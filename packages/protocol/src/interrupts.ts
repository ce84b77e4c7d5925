import type { Interrupt } from './events.js';

/** Where an interrupt stands: waiting for an answer, answered, or cancelled. */
export type InterruptStatus = 'open' | 'resolved' | 'cancelled';

/**
 * An interrupt as `GET /runs/{id}` and `GET /threads/{id}` show it (protocol.md, "Human in
 * the loop"): the AG-UI `Interrupt`, the run it interrupted, and its answer, if any.
 */
export type InterruptView = Interrupt & {
  /** The run that ended with this interrupt. */
  runId: string;
  status: InterruptStatus;
  /** The run that answered (its continuation, or the new prompt that cancelled it). */
  answeredBy?: string;
  /** The answer's `payload`, once answered with one (an approval's reason, a result…). */
  payload?: unknown;
};
