import { DraftState } from './draft-state.js';
import { ResumableError } from './errors.js';
import type { AGUIEvent, Envelope } from './events.js';
import { checkEvent, EventType, isKnownEventType, isTerminalEvent } from './events.js';
import { isOffset } from './offsets.js';
import type { JsonPatcher } from './patch.js';
import type { AppEvent, RunMessage, RunState } from './state.js';
import { isTerminalStatus, NO_CHUNKS } from './state.js';
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
  const walk = new Walk(state, patch);
  walk.run(envelopes);
  const { draft, offset, applied, duplicates, gap } = walk;
  return { state: draft === null ? state : draft.finish(offset), applied, duplicates, gap };
}

/**
 * One batch's pass over its envelopes, kept apart from the code that builds the result: V8
 * compiles a long batch's loop while it runs (on-stack replacement), before the code after
 * the loop has ever run, keeps that code for later calls and bails out of it at every
 * loop's end, so each later long batch began unoptimized again (measured: a 30k-event fold
 * ran its first events in the interpreter on every call). Nothing follows this loop; its
 * tallies live in fields.
 */
class Walk {
  draft: Draft | null = null;
  offset: number;
  applied = 0;
  duplicates = 0;
  gap: OffsetGap | null = null;

  constructor(
    private readonly state: RunState,
    private readonly patch: JsonPatcher | null,
  ) {
    this.offset = state.offset;
  }

  run(envelopes: Iterable<Envelope>): void {
    for (const envelope of envelopes) {
      const envOffset = (envelope as Partial<Envelope> | null)?.offset;
      if (!isOffset(envOffset)) {
        this.draftOf().warn(
          null,
          'malformed_event',
          `an envelope needs a positive integer offset, got ${String(envOffset)}`,
        );
        continue;
      }
      if (envOffset <= this.offset) {
        this.duplicates++;
        continue;
      }
      if (envOffset !== this.offset + 1) {
        this.gap = { expected: this.offset + 1, received: envOffset };
        return;
      }
      this.draftOf().apply(envelope.event, envOffset);
      this.offset = envOffset;
      this.applied++;
    }
  }

  private draftOf(): Draft {
    this.draft ??= new Draft(this.state, this.patch);
    return this.draft;
  }
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

/** The meaning of each AG-UI event, applied to the batch's working copy. */
class Draft extends DraftState {
  constructor(
    base: RunState,
    private readonly patcher: JsonPatcher | null,
  ) {
    super(base);
  }

  /** RFC 6902 through the patcher given, or a `bad_patch` error value without one. */
  private patch(document: unknown, operations: readonly unknown[]): unknown {
    if (this.patcher !== null) return this.patcher(document, operations);
    return new ResumableError('bad_patch', 'the fold was given no JSON Patch support');
  }

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
        this.appendTo(event.messageId, 'assistant', EventType.TEXT_MESSAGE_START, event.delta);
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
        this.appendTo(event.messageId, 'reasoning', EventType.REASONING_MESSAGE_START, event.delta);
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
        const next = this.patch(this.s.state, event.delta);
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
        const next = this.patch(message.content, event.patch);
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
