import { withArguments } from './copy-message.js';
import { DraftState } from './draft-state.js';
import { ResumableError } from './errors.js';
import type { AGUIEvent, Envelope } from './events.js';
import { checkEvent, EventType, isKnownEventType, isTerminalEvent } from './events.js';
import { isOffset } from './offsets.js';
import { NO_CHUNKS } from './open-chunks.js';
import type { JsonPatcher } from './patch.js';
import type { AppEvent, RunMessage, RunState } from './state.js';
import { isTerminalStatus } from './state.js';
import { messageProblem } from './validate.js';

/**
 * Where a batch skipped ahead of the resume point: an envelope arrived beyond the next
 * offset, so the events between were never seen. Reconnect from the state's `offset`
 * (`expected - 1`) to fetch them; `foldLog` throws `offset_gap` on one.
 */
export interface OffsetGap {
  /** The offset that should have come next (resume point + 1). */
  expected: number;
  /** The offset that came instead. */
  received: number;
}

/** What folding one batch of envelopes did: the new state and a tally of the envelopes. */
export interface FoldResult {
  /**
   * The state after the batch: the input state itself when nothing was applied or warned
   * (never mutated), otherwise a new one sharing every unchanged message with it.
   */
  state: RunState;
  /** Envelopes applied (each moved the resume point by one). */
  applied: number;
  /** Envelopes at or below the resume point, ignored as redeliveries. */
  duplicates: number;
  /** Set when an envelope skipped ahead: it and the rest of the batch were not applied. */
  gap: OffsetGap | null;
}

/**
 * `applyEnvelopes` (fold-with-patch.ts, which says what the fold guarantees) with its JSON
 * Patch support passed in, so a client can load it (the `@resumable/protocol/patch` entry)
 * only when a batch holds a STATE_DELTA or ACTIVITY_DELTA (`needsJsonPatch`) and keep it out
 * of its first paint. `null` is for batches that need none: a delta folded without it is a
 * `bad_patch` warning, never a throw. This module does not import the patch code, so a
 * bundler can split it off.
 */
export function applyEnvelopesWith(
  state: RunState,
  envelopes: Iterable<Envelope>,
  patch: JsonPatcher | null,
): FoldResult {
  const result: FoldResult = { state, applied: 0, duplicates: 0, gap: null };
  const draft = walk(result, envelopes, patch);
  // Each applied envelope moved the resume point by one.
  if (draft !== null) result.state = draft.finish(state.offset + result.applied);
  return result;
}

/**
 * One batch's pass over its envelopes, tallied in `result` (whose `state` is still the
 * input); returns the batch's working copy, or null when nothing was applied or warned.
 * The loop is kept apart from the code that builds the result: V8 compiles a long batch's
 * loop while it runs (on-stack replacement), before the code after the loop has ever run,
 * keeps that code for later calls and bails out of it at every loop's end, so each later
 * long batch began unoptimized again (measured: a 30k-event fold ran its first events in
 * the interpreter on every call). Nothing but the return follows this loop.
 */
function walk(
  result: FoldResult,
  envelopes: Iterable<Envelope>,
  patch: JsonPatcher | null,
): DraftState | null {
  const base = result.state;
  let draft: DraftState | null = null;
  let offset = base.offset;
  for (const envelope of envelopes) {
    const envOffset = (envelope as Partial<Envelope> | null)?.offset;
    if (!isOffset(envOffset)) {
      draft ??= new DraftState(base);
      draft.warn(
        null,
        'malformed_event',
        `an envelope needs a positive integer offset, got ${String(envOffset)}`,
      );
      continue;
    }
    if (envOffset <= offset) {
      result.duplicates++;
      continue;
    }
    if (envOffset !== offset + 1) {
      result.gap = { expected: offset + 1, received: envOffset };
      break;
    }
    draft ??= new DraftState(base);
    applyEvent(draft, envelope.event, envOffset, patch);
    offset = envOffset;
    result.applied++;
  }
  return draft;
}

/** Whether folding `envelopes` needs JSON Patch support (a STATE_DELTA or ACTIVITY_DELTA). */
export function needsJsonPatch(envelopes: readonly Envelope[]): boolean {
  for (const envelope of envelopes) {
    const type = (envelope?.event as { type?: unknown } | null | undefined)?.type;
    if (type === EventType.STATE_DELTA || type === EventType.ACTIVITY_DELTA) return true;
  }
  return false;
}

/** Assigns offsets 1..N to a list of events (tests, benchmarks, the server's replays). */
export function toEnvelopes(events: readonly AGUIEvent[], first = 1): Envelope[] {
  return events.map((event, i) => ({ offset: first + i, event }));
}

/** RFC 6902 through the patcher given, or a `bad_patch` error value without one. */
function patchWith(patcher: JsonPatcher | null, document: unknown, operations: readonly unknown[]) {
  if (patcher !== null) return patcher(document, operations);
  return new ResumableError('bad_patch', 'the fold was given no JSON Patch support');
}

/** The meaning of one AG-UI event (at `offset`), applied to the batch's working copy. */
function applyEvent(
  draft: DraftState,
  value: unknown,
  offset: number,
  patcher: JsonPatcher | null,
): void {
  draft.offset = offset;
  const checked = checkEvent(value);
  if (checked instanceof ResumableError) {
    draft.warn(offset, checked.code, checked.message);
    return;
  }
  const event = checked;
  if (isTerminalStatus(draft.next.status)) {
    draft.warn(offset, 'event_after_terminal', `${event.type} after the run ended is ignored`);
    return;
  }
  const chunks = draft.next.openChunks;
  // A chunk block ends at the first event of another type. A terminal event closes it
  // through closeOpenMessages instead, so a block cut short gets its `ended` like any
  // other open message.
  if (chunks !== NO_CHUNKS && !isTerminalEvent(event)) {
    if (chunks.text !== undefined && event.type !== EventType.TEXT_MESSAGE_CHUNK)
      draft.closeChunk('text');
    if (chunks.toolCall !== undefined && event.type !== EventType.TOOL_CALL_CHUNK)
      draft.closeChunk('toolCall');
    if (chunks.reasoning !== undefined && event.type !== EventType.REASONING_MESSAGE_CHUNK)
      draft.closeChunk('reasoning');
  }
  if (draft.next.status === 'idle' && event.type !== EventType.RUN_STARTED) {
    const runId = (event as { runId?: unknown }).runId;
    draft.startRun(typeof runId === 'string' ? runId : null, null);
    draft.synthesize(EventType.RUN_STARTED, draft.next.runId ?? '');
  }
  dispatch(draft, event, patcher);
}

function dispatch(draft: DraftState, event: AGUIEvent, patcher: JsonPatcher | null): void {
  switch (event.type) {
    case EventType.RUN_STARTED:
      draft.startRun(event.runId, event.threadId);
      return;
    case EventType.RUN_FINISHED: {
      const outcome = event.outcome ?? { type: 'success' as const };
      draft.next.outcome = outcome;
      draft.next.status = outcome.type === 'cancelled' ? 'cancelled' : 'finished';
      draft.next.runId ??= event.runId;
      draft.next.threadId ??= event.threadId;
      draft.closeOpenMessages(outcome.type === 'cancelled' ? 'stopped' : undefined);
      return;
    }
    case EventType.RUN_ERROR:
      draft.next.status = 'error';
      draft.next.error =
        event.code === undefined
          ? { message: event.message }
          : { message: event.message, code: event.code };
      draft.closeOpenMessages('error');
      return;

    case EventType.TEXT_MESSAGE_START:
      draft.openMessage(event.messageId, event.role ?? 'assistant', event.name);
      return;
    case EventType.TEXT_MESSAGE_CONTENT:
      draft.appendTo(event.messageId, 'assistant', EventType.TEXT_MESSAGE_START, event.delta);
      return;
    case EventType.TEXT_MESSAGE_END:
      draft.endMessage(
        draft.ensureMessage(event.messageId, 'assistant', EventType.TEXT_MESSAGE_START),
      );
      return;
    case EventType.TEXT_MESSAGE_CHUNK:
      draft.chunk('text', event.messageId, event.delta, () =>
        draft.openMessage(event.messageId!, event.role ?? 'assistant', event.name),
      );
      return;

    case EventType.REASONING_MESSAGE_START:
      draft.openMessage(event.messageId, 'reasoning');
      return;
    case EventType.REASONING_MESSAGE_CONTENT:
      draft.appendTo(event.messageId, 'reasoning', EventType.REASONING_MESSAGE_START, event.delta);
      return;
    case EventType.REASONING_MESSAGE_END:
      draft.endMessage(
        draft.ensureMessage(event.messageId, 'reasoning', EventType.REASONING_MESSAGE_START),
      );
      return;
    case EventType.REASONING_MESSAGE_CHUNK:
      draft.chunk('reasoning', event.messageId, event.delta, () =>
        draft.openMessage(event.messageId!, 'reasoning'),
      );
      return;
    case EventType.REASONING_START:
    case EventType.REASONING_END:
      // Phase markers around reasoning messages; the messages carry the content.
      return;
    case EventType.REASONING_ENCRYPTED_VALUE:
      draft.setEncryptedValue(event.subtype, event.entityId, event.encryptedValue);
      return;

    case EventType.TOOL_CALL_START:
      draft.openToolCall(event.toolCallId, event.toolCallName, event.parentMessageId);
      return;
    case EventType.TOOL_CALL_ARGS: {
      const call = draft.ensureToolCall(event.toolCallId);
      call.function = withArguments(call.function, call.function.arguments + event.delta);
      return;
    }
    case EventType.TOOL_CALL_END:
      delete draft.ensureToolCall(event.toolCallId).streaming;
      return;
    case EventType.TOOL_CALL_CHUNK:
      draft.chunk('toolCall', event.toolCallId, event.delta, () =>
        draft.openToolCall(event.toolCallId!, event.toolCallName ?? '', event.parentMessageId),
      );
      return;
    case EventType.TOOL_CALL_RESULT:
      draft.putMessage({
        id: event.messageId,
        role: 'tool',
        toolCallId: event.toolCallId,
        content: event.content,
      } as RunMessage);
      return;

    case EventType.MESSAGES_SNAPSHOT:
      for (const message of event.messages as unknown[]) {
        const problem = messageProblem(message);
        if (problem !== null) {
          draft.warn(draft.offset, 'malformed_event', `MESSAGES_SNAPSHOT holds ${problem}`);
          continue;
        }
        draft.putMessage({ ...(message as RunMessage) });
      }
      return;
    case EventType.STATE_SNAPSHOT:
      draft.next.state = event.snapshot;
      return;
    case EventType.STATE_DELTA: {
      const next = patchWith(patcher, draft.next.state, event.delta);
      if (next instanceof ResumableError) draft.warn(draft.offset, next.code, next.message);
      else draft.next.state = next;
      return;
    }
    case EventType.ACTIVITY_SNAPSHOT: {
      if (draft.next.messageIndex.has(event.messageId) && event.replace === false) return;
      draft.putMessage({
        id: event.messageId,
        role: 'activity',
        activityType: event.activityType,
        content: event.content,
      } as RunMessage);
      return;
    }
    case EventType.ACTIVITY_DELTA: {
      if (draft.getMessage(event.messageId)?.role !== 'activity') {
        draft.warn(
          draft.offset,
          'malformed_event',
          `ACTIVITY_DELTA for unknown activity "${event.messageId}"`,
        );
        return;
      }
      const message = draft.writableMessage(event.messageId) as { content: unknown };
      const next = patchWith(patcher, message.content, event.patch);
      if (next instanceof ResumableError) draft.warn(draft.offset, next.code, next.message);
      else message.content = next as Record<string, unknown>;
      return;
    }

    case EventType.STEP_STARTED:
      draft.stepsForWrite().push({ name: event.stepName, status: 'running' });
      return;
    case EventType.STEP_FINISHED: {
      const steps = draft.stepsForWrite();
      const i = steps.findLastIndex(
        (step) => step.name === event.stepName && step.status === 'running',
      );
      if (i === -1) steps.push({ name: event.stepName, status: 'finished' });
      else steps[i] = { name: event.stepName, status: 'finished' };
      return;
    }

    case EventType.CUSTOM:
    case EventType.RAW:
    case EventType.SUBAGENT_STARTED:
    case EventType.SUBAGENT_FINISHED:
    case EventType.SUBAGENT_ERROR:
      draft.eventsForWrite().push(event as AppEvent);
      return;
    default:
      // checkEvent already rejected unknown types; this guards a newer @ag-ui/core.
      if (!isKnownEventType((event as { type: unknown }).type)) {
        draft.warn(
          draft.offset,
          'unknown_event',
          `unknown event type "${(event as { type: string }).type}"`,
        );
      }
  }
}
