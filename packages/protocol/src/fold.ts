import { DraftState } from './draft-state.js';
import { ResumableError } from './errors.js';
import type { AGUIEvent, Envelope } from './events.js';
import { checkEvent, EventType, isKnownEventType, isTerminalEvent } from './events.js';
import { isOffset } from './offsets.js';
import { applyJsonPatch } from './patch.js';
import type { AppEvent, RunMessage, RunState } from './state.js';
import { createRunState, isTerminalStatus, NO_CHUNKS } from './state.js';
import { messageProblem } from './validate.js';

export interface OffsetGap {
  /** The offset that should have come next (resume point + 1). */
  expected: number;
  /** The offset that came instead. */
  received: number;
}

export interface FoldResult {
  state: RunState;
  /** Envelopes applied (each moved the resume point by one). */
  applied: number;
  /** Envelopes at or below the resume point, ignored as redeliveries. */
  duplicates: number;
  /** Set when an envelope skipped ahead: it and the rest of the batch were not applied. */
  gap: OffsetGap | null;
}

/**
 * The fold: applies a batch of envelopes to a run state and returns the new state.
 *
 * - Pure: `state` is never mutated. New objects are made only along the paths a batch
 *   changes (the streamed message, the arrays above it); every other message keeps its
 *   identity, so memoized rows do not re-render.
 * - Replay-safe: an envelope at or below `state.offset` is a redelivery and is ignored; one
 *   beyond `state.offset + 1` is a gap, reported, not applied.
 * - Join-safe: CONTENT/ARGS/END for an unknown message, tool call or reasoning block, and a
 *   first event that is not RUN_STARTED, synthesize what is missing (recorded in
 *   `state.synthesized`; they have no offset).
 * - Never throws for bad input: malformed or unknown events become `state.warnings`, move
 *   the resume point past them, and the rest of the batch applies.
 */
export function applyEnvelopes(state: RunState, envelopes: Iterable<Envelope>): FoldResult {
  let draft: Draft | null = null;
  let offset = state.offset;
  let applied = 0;
  let duplicates = 0;
  let gap: OffsetGap | null = null;
  for (const envelope of envelopes) {
    const envOffset = (envelope as Partial<Envelope> | null)?.offset;
    if (!isOffset(envOffset)) {
      draft ??= new Draft(state);
      draft.warn(
        null,
        'malformed_event',
        `an envelope needs a positive integer offset, got ${String(envOffset)}`,
      );
      continue;
    }
    if (envOffset <= offset) {
      duplicates++;
      continue;
    }
    if (envOffset !== offset + 1) {
      gap = { expected: offset + 1, received: envOffset };
      break;
    }
    draft ??= new Draft(state);
    draft.apply(envelope.event, envOffset);
    offset = envOffset;
    applied++;
  }
  return { state: draft === null ? state : draft.finish(offset), applied, duplicates, gap };
}

/** Folds a whole log (offsets 1..N in order) from scratch. */
export function foldLog(envelopes: Iterable<Envelope>, initial?: RunState): RunState {
  const result = applyEnvelopes(initial ?? createRunState(), envelopes);
  if (result.gap) {
    throw new ResumableError(
      'offset_gap',
      `log has a gap: expected offset ${result.gap.expected}, got ${result.gap.received}`,
    );
  }
  return result.state;
}

/** Assigns offsets 1..N to a list of events (tests, benchmarks, the server's replays). */
export function toEnvelopes(events: readonly AGUIEvent[], first = 1): Envelope[] {
  return events.map((event, i) => ({ offset: first + i, event }));
}

/** The meaning of each AG-UI event, applied to the batch's working copy. */
class Draft extends DraftState {
  apply(value: unknown, offset: number): void {
    this.offset = offset;
    const checked = checkEvent(value);
    if (checked instanceof ResumableError) {
      this.warn(offset, checked.code, checked.message);
      return;
    }
    const event = checked;
    if (isTerminalStatus(this.s.status)) {
      this.warn(offset, 'event_after_terminal', `${event.type} after the run ended is ignored`);
      return;
    }
    const chunks = this.s.openChunks;
    // A chunk block ends at the first event of another type. A terminal event closes it
    // through closeOpenMessages instead, so a block cut short gets its `ended` like any
    // other open message.
    if (chunks !== NO_CHUNKS && !isTerminalEvent(event)) {
      if (chunks.text !== undefined && event.type !== EventType.TEXT_MESSAGE_CHUNK)
        this.closeChunk('text');
      if (chunks.toolCall !== undefined && event.type !== EventType.TOOL_CALL_CHUNK)
        this.closeChunk('toolCall');
      if (chunks.reasoning !== undefined && event.type !== EventType.REASONING_MESSAGE_CHUNK)
        this.closeChunk('reasoning');
    }
    if (this.s.status === 'idle' && event.type !== EventType.RUN_STARTED) {
      const runId = (event as { runId?: unknown }).runId;
      this.startRun(typeof runId === 'string' ? runId : null, null);
      this.synthesize(EventType.RUN_STARTED, this.s.runId ?? '');
    }
    this.dispatch(event);
  }

  private dispatch(event: AGUIEvent): void {
    switch (event.type) {
      case EventType.RUN_STARTED:
        this.startRun(event.runId, event.threadId);
        return;
      case EventType.RUN_FINISHED: {
        const outcome = event.outcome ?? { type: 'success' as const };
        this.s.outcome = outcome;
        this.s.status = outcome.type === 'cancelled' ? 'cancelled' : 'finished';
        this.s.runId ??= event.runId;
        this.s.threadId ??= event.threadId;
        this.closeOpenMessages(outcome.type === 'cancelled' ? 'stopped' : undefined);
        return;
      }
      case EventType.RUN_ERROR:
        this.s.status = 'error';
        this.s.error =
          event.code === undefined
            ? { message: event.message }
            : { message: event.message, code: event.code };
        this.closeOpenMessages('error');
        return;

      case EventType.TEXT_MESSAGE_START:
        this.openMessage(event.messageId, event.role ?? 'assistant', event.name);
        return;
      case EventType.TEXT_MESSAGE_CONTENT:
        this.appendContent(
          this.ensureMessage(event.messageId, 'assistant', EventType.TEXT_MESSAGE_START),
          event.delta,
        );
        return;
      case EventType.TEXT_MESSAGE_END:
        this.endMessage(
          this.ensureMessage(event.messageId, 'assistant', EventType.TEXT_MESSAGE_START),
        );
        return;
      case EventType.TEXT_MESSAGE_CHUNK:
        this.chunk('text', event.messageId, event.delta, () =>
          this.openMessage(event.messageId!, event.role ?? 'assistant', event.name),
        );
        return;

      case EventType.REASONING_MESSAGE_START:
        this.openMessage(event.messageId, 'reasoning');
        return;
      case EventType.REASONING_MESSAGE_CONTENT:
        this.appendContent(
          this.ensureMessage(event.messageId, 'reasoning', EventType.REASONING_MESSAGE_START),
          event.delta,
        );
        return;
      case EventType.REASONING_MESSAGE_END:
        this.endMessage(
          this.ensureMessage(event.messageId, 'reasoning', EventType.REASONING_MESSAGE_START),
        );
        return;
      case EventType.REASONING_MESSAGE_CHUNK:
        this.chunk('reasoning', event.messageId, event.delta, () =>
          this.openMessage(event.messageId!, 'reasoning'),
        );
        return;
      case EventType.REASONING_START:
      case EventType.REASONING_END:
        // Phase markers around reasoning messages; the messages carry the content.
        return;
      case EventType.REASONING_ENCRYPTED_VALUE:
        this.setEncryptedValue(event.subtype, event.entityId, event.encryptedValue);
        return;

      case EventType.TOOL_CALL_START:
        this.openToolCall(event.toolCallId, event.toolCallName, event.parentMessageId);
        return;
      case EventType.TOOL_CALL_ARGS: {
        const call = this.ensureToolCall(event.toolCallId);
        call.function = { ...call.function, arguments: call.function.arguments + event.delta };
        return;
      }
      case EventType.TOOL_CALL_END:
        delete this.ensureToolCall(event.toolCallId).streaming;
        return;
      case EventType.TOOL_CALL_CHUNK:
        this.chunk('toolCall', event.toolCallId, event.delta, () =>
          this.openToolCall(event.toolCallId!, event.toolCallName ?? '', event.parentMessageId),
        );
        return;
      case EventType.TOOL_CALL_RESULT:
        this.putMessage({
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
            this.warn(this.offset, 'malformed_event', `MESSAGES_SNAPSHOT holds ${problem}`);
            continue;
          }
          this.putMessage({ ...(message as RunMessage) });
        }
        return;
      case EventType.STATE_SNAPSHOT:
        this.s.state = event.snapshot;
        return;
      case EventType.STATE_DELTA: {
        const next = applyJsonPatch(this.s.state, event.delta);
        if (next instanceof ResumableError) this.warn(this.offset, next.code, next.message);
        else this.s.state = next;
        return;
      }
      case EventType.ACTIVITY_SNAPSHOT: {
        if (this.s.messageIndex.has(event.messageId) && event.replace === false) return;
        this.putMessage({
          id: event.messageId,
          role: 'activity',
          activityType: event.activityType,
          content: event.content,
        } as RunMessage);
        return;
      }
      case EventType.ACTIVITY_DELTA: {
        if (this.getMessage(event.messageId)?.role !== 'activity') {
          this.warn(
            this.offset,
            'malformed_event',
            `ACTIVITY_DELTA for unknown activity "${event.messageId}"`,
          );
          return;
        }
        const message = this.writableMessage(event.messageId) as { content: unknown };
        const next = applyJsonPatch(message.content, event.patch);
        if (next instanceof ResumableError) this.warn(this.offset, next.code, next.message);
        else message.content = next as Record<string, unknown>;
        return;
      }

      case EventType.STEP_STARTED:
        this.stepsForWrite().push({ name: event.stepName, status: 'running' });
        return;
      case EventType.STEP_FINISHED: {
        const steps = this.stepsForWrite();
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
        this.eventsForWrite().push(event as AppEvent);
        return;
      default:
        // checkEvent already rejected unknown types; this guards a newer @ag-ui/core.
        if (!isKnownEventType((event as { type: unknown }).type)) {
          this.warn(
            this.offset,
            'unknown_event',
            `unknown event type "${(event as { type: string }).type}"`,
          );
        }
    }
  }
}
