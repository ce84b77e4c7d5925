import type { RunMessage, RunSnapshot, RunState } from './state.js';
import { createRunState } from './state.js';

/**
 * A run state to continue from after `GET /runs/{id}` (an expired or foreign offset): its
 * messages and state, resume point `lastOffset`. Live events after it apply as usual, and
 * any START they lack is synthesized.
 */
export function stateFromSnapshot(snapshot: RunSnapshot): RunState {
  const messageIndex: Record<string, number> = {};
  const toolCallOwner: Record<string, string> = {};
  const messages: RunMessage[] = snapshot.messages.map((message, i) => {
    messageIndex[message.id] = i;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) toolCallOwner[call.id] = message.id;
    }
    return message;
  });
  return {
    ...createRunState({
      from: snapshot.lastOffset,
      runId: snapshot.runId,
      threadId: snapshot.threadId,
    }),
    status: snapshot.status,
    outcome: snapshot.outcome ?? null,
    error: snapshot.error ?? null,
    messages,
    messageIndex,
    toolCallOwner,
    state: snapshot.state,
  };
}

/** The folded state as `GET /runs/{id}` answers it. */
export function snapshotOf(state: RunState): RunSnapshot {
  const snapshot: RunSnapshot = {
    runId: state.runId ?? '',
    threadId: state.threadId ?? '',
    status: state.status === 'idle' ? 'running' : state.status,
    lastOffset: state.offset,
    messages: state.messages as RunMessage[],
  };
  if (state.state !== undefined) snapshot.state = state.state;
  if (state.outcome !== null) snapshot.outcome = state.outcome;
  if (state.error !== null) snapshot.error = state.error;
  return snapshot;
}
