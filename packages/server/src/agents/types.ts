import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';

export interface AgentContext {
  /** Aborted when the run is cancelled or the server shuts down: stop producing. */
  signal: AbortSignal;
}

/**
 * An agent turns one `RunAgentInput` into AG-UI events. It runs detached from any HTTP
 * request; the manager assigns offsets, stores and fans out what it yields.
 *
 * - It may or may not yield `RUN_STARTED` / `RUN_FINISHED`: the manager emits them when
 *   missing and fixes their `threadId` / `runId`.
 * - Throwing ends the run with `RUN_ERROR` (its `code` is the error's `ResumableError`
 *   code, else `agent_failed`).
 * - Events after a terminal one, and events that are not valid AG-UI, are dropped.
 */
export type Agent = (input: RunAgentInput, ctx: AgentContext) => AsyncIterable<AGUIEvent>;
