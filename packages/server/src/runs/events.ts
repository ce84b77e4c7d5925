import type { AGUIEvent, Envelope, ErrorCode, RunState } from '@resumable/protocol';
import {
  applyEnvelopes,
  createRunState,
  EventType,
  ResumableError,
  RUN_ERROR_CODES,
} from '@resumable/protocol';
import type { EventStore, RunEnd, RunRecord, StoredEvent } from '../stores/types.js';

/** An event with its offset, as queued for the store. */
export interface PendingEvent {
  offset: number;
  event: AGUIEvent;
  json: string;
}

export function pendingEvent(offset: number, event: AGUIEvent): PendingEvent {
  return { offset, event, json: JSON.stringify(event) };
}

export function toEnvelope(event: StoredEvent): Envelope {
  return { offset: event.offset, event: JSON.parse(event.json) as AGUIEvent };
}

/**
 * The one fold of a stored run: every event the store holds for `record`, page by page,
 * into the protocol's `RunState`. Snapshots of runs produced elsewhere and the ends written
 * for runs nobody produces both start from it.
 */
export async function foldStoredRun(store: EventStore, record: RunRecord): Promise<RunState> {
  let state = createRunState({ runId: record.runId, threadId: record.threadId });
  for (;;) {
    const events = await store.readEvents(record.runId, state.offset, 1000);
    if (events.length === 0) return state;
    state = applyEnvelopes(state, events.map(toEnvelope)).state;
  }
}

export function startedEvent(threadId: string, runId: string): AGUIEvent {
  return { type: EventType.RUN_STARTED, threadId, runId };
}

/** A `RUN_ERROR` the server writes itself (`agent_lost`, `agent_timeout`, …). */
export function runError(code: ErrorCode, message: string): AGUIEvent {
  return { type: EventType.RUN_ERROR, message, code };
}

export function lostEvent(message: string): AGUIEvent {
  return runError('agent_lost', message);
}

export function cancelledEvent(threadId: string, runId: string): AGUIEvent {
  return { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' } };
}

export function finishedEvent(threadId: string, runId: string): AGUIEvent {
  return { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'success' } };
}

export function errorEvent(error: unknown): AGUIEvent {
  const code = error instanceof ResumableError ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return agentRunError(code, message);
}

/**
 * An error the agent raised or yielded, as the run's `RUN_ERROR`. Its code goes out only
 * when it is a run outcome (`RUN_ERROR_CODES`): a client reads `thread_not_found` or
 * `bad_request` as the server's answer about its own request, so any other code (or none)
 * ends the run `agent_failed`, the agent's code kept in the message.
 */
export function agentRunError(code: unknown, message: unknown): AGUIEvent {
  const text = typeof message === 'string' && message !== '' ? message : 'the agent failed';
  if (isRunErrorCode(code)) return runError(code, text);
  if (code === undefined || code === null) return runError('agent_failed', text);
  return runError('agent_failed', `${text} (the agent's code: ${JSON.stringify(String(code))})`);
}

const isRunErrorCode = (code: unknown): code is (typeof RUN_ERROR_CODES)[number] =>
  (RUN_ERROR_CODES as readonly unknown[]).includes(code);

export function statusOf(event: AGUIEvent): RunEnd['status'] {
  if (event.type === EventType.RUN_ERROR) return 'error';
  const outcome = (event as { outcome?: { type?: string } }).outcome;
  return outcome?.type === 'cancelled' ? 'cancelled' : 'finished';
}
