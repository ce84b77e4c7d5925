import { ResumableError } from './errors.js';
import { isResumePoint } from './offsets.js';
import { NO_CHUNKS, type OpenChunks } from './open-chunks.js';
import type { FoldWarning, RunMessage, RunSnapshot, RunState } from './state.js';
import { createRunState, MAX_WARNINGS } from './state.js';
import { messageProblem } from './validate.js';

/**
 * A run state to continue from after `GET /runs/{id}` (an expired or foreign offset): its
 * messages and state, resume point `lastOffset`. Live events after it apply as usual, and
 * any START they lack is synthesized. A message the fold could not extend (no id or role,
 * malformed tool calls) is left out and reported in `warnings`, so the fold never trips
 * over it later.
 */
export function stateFromSnapshot(snapshot: RunSnapshot): RunState {
  const messageIndex = new Map<string, number>();
  const toolCallOwner = new Map<string, string>();
  const messages: RunMessage[] = [];
  const warnings: FoldWarning[] = [];
  let warningCount = 0;
  const input: unknown[] = Array.isArray(snapshot.messages) ? snapshot.messages : [];
  for (const message of input) {
    const problem = messageProblem(message);
    if (problem !== null) {
      warningCount++;
      if (warnings.length < MAX_WARNINGS) {
        warnings.push({
          offset: null,
          code: 'malformed_event',
          message: `snapshot holds ${problem}`,
        });
      }
      continue;
    }
    const m = message as RunMessage;
    const existing = messageIndex.get(m.id);
    if (existing === undefined) {
      messageIndex.set(m.id, messages.length);
      messages.push(m);
    } else {
      messages[existing] = m;
    }
    if (m.role === 'assistant') {
      for (const call of m.toolCalls ?? []) toolCallOwner.set(call.id, m.id);
    }
  }
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
    warnings,
    warningCount,
    openChunks: openChunksOf(snapshot.openChunks),
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
  const chunks = state.openChunks;
  if (
    chunks.text !== undefined ||
    chunks.toolCall !== undefined ||
    chunks.reasoning !== undefined
  ) {
    snapshot.openChunks = chunks;
  }
  return snapshot;
}

function openChunksOf(value: unknown): OpenChunks {
  if (typeof value !== 'object' || value === null) return NO_CHUNKS;
  const { text, toolCall, reasoning } = value as Record<string, unknown>;
  const chunks: { text?: string; toolCall?: string; reasoning?: string } = {};
  if (typeof text === 'string') chunks.text = text;
  if (typeof toolCall === 'string') chunks.toolCall = toolCall;
  if (typeof reasoning === 'string') chunks.reasoning = reasoning;
  return chunks.text === undefined &&
    chunks.toolCall === undefined &&
    chunks.reasoning === undefined
    ? NO_CHUNKS
    : chunks;
}

const SNAPSHOT_STATUSES: readonly string[] = ['running', 'finished', 'cancelled', 'error'];

/**
 * Checks an answer of `GET /runs/{id}` before anything uses it: an object with string ids,
 * a known status, `lastOffset` a safe non-negative integer (never the string `"8"`, which
 * would be concatenated into offset `"81"`), and a `messages` array. Anything else is a
 * `bad_snapshot` error (returned, not thrown): the caller retries it like a network fault.
 * Individual malformed messages are left to `stateFromSnapshot` (dropped with a warning).
 */
export function parseSnapshot(value: unknown, runId?: string): RunSnapshot | ResumableError {
  const bad = (why: string) => new ResumableError('bad_snapshot', `not a run snapshot: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return bad('not an object');
  }
  const s = value as Partial<Record<keyof RunSnapshot, unknown>>;
  if (typeof s.runId !== 'string') return bad('no runId');
  // '' is a log whose RUN_STARTED the server's fold has not seen yet: not another run.
  if (runId !== undefined && s.runId !== runId && s.runId !== '') {
    return bad(`runId "${s.runId}" is another run`);
  }
  if (typeof s.threadId !== 'string') return bad('no threadId');
  if (typeof s.status !== 'string' || !SNAPSHOT_STATUSES.includes(s.status)) {
    return bad(`status ${JSON.stringify(s.status)}`);
  }
  if (!isResumePoint(s.lastOffset)) return bad(`lastOffset ${JSON.stringify(s.lastOffset)}`);
  if (!Array.isArray(s.messages)) return bad('messages is not an array');
  if (
    s.error !== undefined &&
    (typeof s.error !== 'object' ||
      s.error === null ||
      typeof (s.error as { message?: unknown }).message !== 'string')
  ) {
    return bad('error is not { message }');
  }
  if (s.outcome !== undefined && (typeof s.outcome !== 'object' || s.outcome === null)) {
    return bad('outcome is not an object');
  }
  return runId !== undefined && s.runId === ''
    ? ({ ...value, runId } as RunSnapshot)
    : (value as RunSnapshot);
}
