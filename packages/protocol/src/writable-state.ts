import type { RunState } from './state.js';

/**
 * The fold's writable copy of a run state (draft-state.ts): its own, not the package's (the
 * entry exports what a state is, not how the fold builds the next one).
 */

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A shallow copy of a run state. Spelled out rather than spread so every state the fold
 * makes has one hidden class: this runs once per batch, which is once per event for a
 * client that renders every event.
 */
export function copyRunState(b: RunState): Mutable<RunState> {
  return {
    offset: b.offset,
    runId: b.runId,
    threadId: b.threadId,
    status: b.status,
    outcome: b.outcome,
    error: b.error,
    messages: b.messages,
    messageIndex: b.messageIndex,
    toolCallOwner: b.toolCallOwner,
    state: b.state,
    steps: b.steps,
    events: b.events,
    warnings: b.warnings,
    warningCount: b.warningCount,
    synthesized: b.synthesized,
    synthesizedCount: b.synthesizedCount,
    openChunks: b.openChunks,
  };
}
