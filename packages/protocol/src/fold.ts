import type { ErrorCode } from './errors.js';
import { ResumableError } from './errors.js';
import type { AGUIEvent, Envelope } from './events.js';
import { checkEvent, EventType, isKnownEventType, isTerminalEvent } from './events.js';
import { isOffset } from './offsets.js';
import { applyJsonPatch } from './patch.js';
import type {
  AppEvent,
  FoldWarning,
  MessageEnd,
  RunMessage,
  RunState,
  RunToolCall,
  StepState,
  SynthesizedStart,
} from './state.js';
import { createRunState, idTable, isTerminalStatus, MAX_WARNINGS, NO_CHUNKS } from './state.js';
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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type ChunkKind = 'text' | 'toolCall' | 'reasoning';

/**
 * The working copy of one batch. Arrays and objects are copied the first time the batch
 * writes to them and remembered in `fresh`, so the 2nd..Nth delta into the same message in
 * one batch mutates the batch's own copy instead of copying again. Nothing reachable from
 * the input state is ever written.
 */
class Draft {
  private readonly base: RunState;
  private readonly s: Mutable<RunState>;
  /** Objects this batch created (so it may write them): the first, then a Set for more. */
  private freshOne: object | null = null;
  private freshMore: Set<object> | null = null;
  private messagesCopied = false;
  private indexCopied = false;
  private ownerCopied = false;
  private offset = 0;

  constructor(base: RunState) {
    this.base = base;
    this.s = copyState(base);
  }

  private isFresh(value: object): boolean {
    return value === this.freshOne || this.freshMore?.has(value) === true;
  }

  private markFresh(value: object): void {
    if (this.freshOne === null) {
      this.freshOne = value;
      return;
    }
    this.freshMore ??= new Set();
    this.freshMore.add(value);
  }

  finish(offset: number): RunState {
    this.s.offset = offset;
    return this.s;
  }

  warn(offset: number | null, code: ErrorCode, message: string): void {
    const warning: FoldWarning = { offset, code, message };
    const list =
      this.s.warnings === this.base.warnings
        ? this.base.warnings.slice()
        : (this.s.warnings as FoldWarning[]);
    list.push(warning);
    if (list.length > MAX_WARNINGS) list.splice(0, list.length - MAX_WARNINGS);
    this.s.warnings = list;
    this.s.warningCount++;
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
        if (this.s.messageIndex[event.messageId] !== undefined && event.replace === false) return;
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

  // ── run ──────────────────────────────────────────────────────────────────────────────

  private startRun(runId: string | null, threadId: string | null): void {
    this.s.status = 'running';
    if (runId !== null) this.s.runId = runId;
    if (threadId !== null) this.s.threadId = threadId;
  }

  private synthesize(type: EventType, id: string): void {
    const entry: SynthesizedStart = { type, id, atOffset: this.offset };
    // Copied once per batch, then appended to: a batch joining 30k unknown ids stays linear.
    if (this.s.synthesized === this.base.synthesized) {
      this.s.synthesized = this.base.synthesized.slice();
    }
    (this.s.synthesized as SynthesizedStart[]).push(entry);
  }

  private closeOpenMessages(end: MessageEnd | undefined): void {
    const messages = this.s.messages;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      const openCall = message.toolCalls?.some((call) => call.streaming);
      if (!message.streaming && !openCall) continue;
      const writable = this.writableMessage(message.id);
      delete writable.streaming;
      if (end !== undefined) writable.ended = end;
      if (openCall) {
        writable.toolCalls = writable.toolCalls!.map((call) => {
          if (!call.streaming) return call;
          const { streaming: _open, ...closed } = call;
          return closed;
        });
      }
    }
    this.s.openChunks = NO_CHUNKS;
  }

  // ── messages ─────────────────────────────────────────────────────────────────────────

  private messagesForWrite(): RunMessage[] {
    if (!this.messagesCopied) {
      this.s.messages = this.base.messages.slice();
      this.messagesCopied = true;
    }
    return this.s.messages as RunMessage[];
  }

  private indexForWrite(): Record<string, number> {
    if (!this.indexCopied) {
      this.s.messageIndex = idTable(this.base.messageIndex);
      this.indexCopied = true;
    }
    return this.s.messageIndex as Record<string, number>;
  }

  private ownerForWrite(): Record<string, string> {
    if (!this.ownerCopied) {
      this.s.toolCallOwner = idTable(this.base.toolCallOwner);
      this.ownerCopied = true;
    }
    return this.s.toolCallOwner as Record<string, string>;
  }

  private getMessage(id: string): RunMessage | undefined {
    const i = this.s.messageIndex[id];
    return i === undefined ? undefined : this.s.messages[i];
  }

  /** A copy of the message this batch may mutate (made once per batch). */
  private writableMessage(id: string): RunMessage {
    const i = this.s.messageIndex[id]!;
    const current = this.s.messages[i]!;
    // A message past the base's end was added by this batch: it is this batch's own.
    if (i >= this.base.messages.length || this.isFresh(current)) return current;
    const copy = { ...current } as RunMessage;
    this.markFresh(copy);
    this.messagesForWrite()[i] = copy;
    return copy;
  }

  private addMessage(message: RunMessage): RunMessage {
    const messages = this.messagesForWrite();
    this.indexForWrite()[message.id] = messages.length;
    messages.push(message);
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner[call.id] = message.id;
    }
    return message;
  }

  /** Insert, or replace in place (keeping its position), a whole message. */
  private putMessage(message: RunMessage): void {
    const i = this.s.messageIndex[message.id];
    if (i === undefined) {
      this.addMessage(message);
      return;
    }
    // The replaced message's tool calls stop pointing at it (the replacement may lack them,
    // or not be an assistant message at all); the replacement's own calls are registered.
    const replaced = this.s.messages[i]!;
    if (replaced.role === 'assistant' && replaced.toolCalls !== undefined) {
      const owner = this.ownerForWrite();
      for (const call of replaced.toolCalls) {
        if (owner[call.id] === message.id) delete owner[call.id];
      }
    }
    this.markFresh(message);
    this.messagesForWrite()[i] = message;
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner[call.id] = message.id;
    }
  }

  private openMessage(id: string, role: RunMessage['role'], name?: string): RunMessage {
    if (this.s.messageIndex[id] !== undefined) {
      const message = this.writableMessage(id);
      message.streaming = true;
      return message;
    }
    const message = { id, role, content: '', streaming: true } as RunMessage;
    if (name !== undefined) (message as { name?: string }).name = name;
    return this.addMessage(message);
  }

  /** The message a CONTENT/END refers to, synthesizing its START when it was never seen. */
  private ensureMessage(
    id: string,
    role: 'assistant' | 'reasoning',
    startType: EventType,
  ): RunMessage {
    if (this.s.messageIndex[id] !== undefined) return this.writableMessage(id);
    this.synthesize(startType, id);
    return this.openMessage(id, role);
  }

  private appendContent(message: RunMessage, delta: string): void {
    const content = (message as { content?: unknown }).content;
    if (content === undefined || typeof content === 'string') {
      (message as { content: string }).content = (content ?? '') + delta;
    } else {
      this.warn(
        this.offset,
        'malformed_event',
        `message "${message.id}" has structured content; a text delta cannot extend it`,
      );
    }
  }

  private endMessage(message: RunMessage): void {
    delete message.streaming;
  }

  private setEncryptedValue(subtype: string, entityId: string, value: string): void {
    if (subtype === 'tool-call') {
      if (this.s.toolCallOwner[entityId] === undefined) return;
      this.writableToolCall(entityId).encryptedValue = value;
    } else if (this.s.messageIndex[entityId] !== undefined) {
      (this.writableMessage(entityId) as { encryptedValue?: string }).encryptedValue = value;
    }
  }

  // ── chunks ───────────────────────────────────────────────────────────────────────────

  private chunk(
    kind: ChunkKind,
    id: string | undefined,
    delta: string | undefined,
    open: () => void,
  ): void {
    const open_ = this.s.openChunks[kind];
    const target = id ?? open_;
    if (target === undefined) {
      this.warn(this.offset, 'malformed_event', `a ${kind} chunk without an id continues nothing`);
      return;
    }
    if (open_ !== undefined && open_ !== target) this.closeChunk(kind);
    const exists =
      kind === 'toolCall'
        ? this.s.toolCallOwner[target] !== undefined
        : this.s.messageIndex[target] !== undefined;
    if (!exists) {
      if (id === undefined) {
        this.warn(this.offset, 'malformed_event', `a ${kind} chunk continues "${target}", unknown`);
        return;
      }
      open();
    }
    if (this.s.openChunks[kind] !== target) {
      this.s.openChunks = { ...this.s.openChunks, [kind]: target };
    }
    if (delta === undefined || delta === '') return;
    if (kind === 'toolCall') {
      const call = this.writableToolCall(target);
      call.function = { ...call.function, arguments: call.function.arguments + delta };
    } else {
      this.appendContent(this.writableMessage(target), delta);
    }
  }

  private closeChunk(kind: ChunkKind): void {
    const id = this.s.openChunks[kind]!;
    const rest: { text?: string; toolCall?: string; reasoning?: string } = {
      ...this.s.openChunks,
    };
    delete rest[kind];
    this.s.openChunks =
      rest.text === undefined && rest.toolCall === undefined && rest.reasoning === undefined
        ? NO_CHUNKS
        : rest;
    if (kind === 'toolCall') {
      if (this.s.toolCallOwner[id] !== undefined) delete this.writableToolCall(id).streaming;
    } else if (this.s.messageIndex[id] !== undefined) {
      delete this.writableMessage(id).streaming;
    }
  }

  // ── tool calls ───────────────────────────────────────────────────────────────────────

  private openToolCall(toolCallId: string, name: string, parentMessageId?: string): RunToolCall {
    if (this.s.toolCallOwner[toolCallId] !== undefined) {
      const call = this.writableToolCall(toolCallId);
      if (name !== '' && call.function.name === '') call.function = { ...call.function, name };
      return call;
    }
    const ownerId = parentMessageId ?? toolCallId;
    const call: RunToolCall = {
      id: toolCallId,
      type: 'function',
      function: { name, arguments: '' },
      streaming: true,
    };
    this.markFresh(call);
    const owner = this.getMessage(ownerId);
    if (owner === undefined || owner.role !== 'assistant') {
      const id = owner === undefined ? ownerId : toolCallId;
      this.addMessage({ id, role: 'assistant', toolCalls: [call] } as RunMessage);
      this.ownerForWrite()[toolCallId] = id;
      return call;
    }
    const message = this.writableMessage(ownerId);
    const calls = message.toolCalls;
    if (calls !== undefined && this.isFresh(calls)) calls.push(call);
    else {
      message.toolCalls = [...(calls ?? []), call];
      this.markFresh(message.toolCalls);
    }
    this.ownerForWrite()[toolCallId] = ownerId;
    return call;
  }

  /** The tool call an ARGS/END refers to, synthesizing its START when it was never seen. */
  private ensureToolCall(toolCallId: string): RunToolCall {
    if (this.s.toolCallOwner[toolCallId] !== undefined) return this.writableToolCall(toolCallId);
    this.synthesize(EventType.TOOL_CALL_START, toolCallId);
    return this.openToolCall(toolCallId, '');
  }

  private writableToolCall(toolCallId: string): RunToolCall {
    const message = this.writableMessage(this.s.toolCallOwner[toolCallId]!);
    let calls = message.toolCalls!;
    if (!this.isFresh(calls)) {
      calls = [...calls];
      message.toolCalls = calls;
      this.markFresh(calls);
    }
    const i = calls.findIndex((call) => call.id === toolCallId);
    const current = calls[i]!;
    if (this.isFresh(current)) return current;
    const copy = { ...current };
    this.markFresh(copy);
    calls[i] = copy;
    return copy;
  }

  private stepsForWrite(): StepState[] {
    if (this.s.steps === this.base.steps) this.s.steps = this.base.steps.slice();
    return this.s.steps as StepState[];
  }

  private eventsForWrite(): AppEvent[] {
    if (this.s.events === this.base.events) this.s.events = this.base.events.slice();
    return this.s.events as AppEvent[];
  }
}

/**
 * A shallow copy of a run state. Spelled out rather than spread so every state the fold
 * makes has one hidden class: this runs once per batch, which is once per event for a
 * client that renders every event.
 */
function copyState(b: RunState): Mutable<RunState> {
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
    openChunks: b.openChunks,
  };
}
