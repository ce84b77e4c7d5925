import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import type { ReadFile } from '../files/references.js';

/** What the server gives an agent besides the run's input: when to stop, and its files. */
export interface AgentContext {
  /** Aborted when the run is cancelled, times out or the server shuts down: stop producing. */
  signal: AbortSignal;
  /**
   * Reads a file of this run's thread by the URL an `image` / `document` part names (the
   * model cannot fetch it: it needs the thread's token). Null for any other URL.
   */
  readFile?: ReadFile;
  /**
   * The place this run's answer takes among the answers to the same prompt: 0 for a first
   * answer, n for the n-th regenerate (an agent may vary its answer with it).
   */
  answerIndex?: number;
  /**
   * Tells the server the agent is working though it has nothing to yield (an upstream's
   * keep-alive comment while its model thinks out of sight): the run's agent-silence
   * deadline (`agentTimeoutMs`) starts over; `maxRunMs` still holds. An agent calling it
   * bounds on its own how long it goes on without yielding (the proxy agents:
   * `keepAliveTimeoutMs`). Absent where the server does not offer it.
   */
  keepAlive?: () => void;
}

/** The server's limits on one run, for an agent's `validate`. */
export interface AgentLimits {
  /** Longest a run may last, in milliseconds (`limits.maxRunMs`). */
  maxRunMs: number;
  /** Most events a run may have (`limits.maxEventsPerRun`). */
  maxEventsPerRun: number;
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
 * - `validate`, when present, is called at `POST /runs` before anything is stored: what it
 *   throws (a `ResumableError('bad_request')`) is the answer, so input the agent would
 *   fail on later is refused up front instead of failing after a `201`.
 */
export type Agent = ((input: RunAgentInput, ctx: AgentContext) => AsyncIterable<AGUIEvent>) & {
  /**
   * Checks a run's input at `POST /runs`, before anything is stored: throws
   * `ResumableError('bad_request')` for input it could not finish within `limits`.
   */
  validate?: (input: RunAgentInput, limits: AgentLimits) => void;
};
