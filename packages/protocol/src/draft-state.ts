import { BatchMessages } from './batch-messages.js';
import { CallPositions } from './call-positions.js';
import type { ErrorCode } from './errors.js';
import { EventType } from './events.js';
import { IdIndex } from './id-index.js';
import { appendRecent, keepRecent, RecentStarts } from './recent-list.js';
import type {
  AppEvent,
  FoldWarning,
  MessageEnd,
  Mutable,
  RunMessage,
  RunState,
  RunToolCall,
  StepState,
} from './state.js';
import { copyRunState, MAX_SYNTHESIZED, MAX_WARNINGS, NO_CHUNKS } from './state.js';

export type ChunkKind = 'text' | 'toolCall' | 'reasoning';

/**
 * One batch's working copy and the operations on its messages, tool calls and chunks (the
 * events' meaning is `Draft`'s, in fold.ts). What the batch writes is copied once and kept
 * in `fresh`, so later deltas in the batch mutate its own copy. Nothing reachable from the
 * input state is ever written.
 */
export class DraftState {
  protected readonly base: RunState;
  protected readonly s: Mutable<RunState>;
  /** Objects this batch created (so it may write them): the first, then a Set for more. */
  protected freshOne: object | null = null;
  protected freshMore: Set<object> | null = null;
  protected indexCopied = false;
  protected ownerCopied = false;
  protected offset = 0;
  /** The STARTs this batch synthesized (null until the first). */
  private starts: RecentStarts | null = null;
  /** The id last looked up or added, and its position: a stream writes one message at a time. */
  private lastId: string | null = null;
  private lastAt = 0;
  private positions: CallPositions | null = null;

  /** `s.messages` while the batch runs (it becomes the array at `finish`). */
  protected readonly list: BatchMessages;
  constructor(base: RunState) {
    this.base = base;
    this.s = copyRunState(base);
    this.list = new BatchMessages(base.messages);
  }

  protected isFresh(value: object): boolean {
    return value === this.freshOne || this.freshMore?.has(value) === true;
  }

  protected markFresh(value: object): void {
    if (this.freshOne === null) this.freshOne = value;
    else {
      this.freshMore ??= new Set();
      this.freshMore.add(value);
    }
  }

  finish(offset: number): RunState {
    this.s.offset = offset;
    this.s.messages = this.list.result();
    keepRecent(this.s.warnings, this.base.warnings, MAX_WARNINGS);
    if (this.starts !== null) this.s.synthesized = this.starts.after(this.base.synthesized);
    return this.s;
  }

  warn(offset: number | null, code: ErrorCode, message: string): void {
    const warning: FoldWarning = { offset, code, message };
    this.s.warnings = appendRecent(this.s.warnings, this.base.warnings, warning, MAX_WARNINGS);
    this.s.warningCount++;
  }

  // ── run ──────────────────────────────────────────────────────────────────────────────

  protected startRun(runId: string | null, threadId: string | null): void {
    this.s.status = 'running';
    if (runId !== null) this.s.runId = runId;
    if (threadId !== null) this.s.threadId = threadId;
  }

  protected synthesize(type: EventType, id: string): void {
    this.starts ??= new RecentStarts(MAX_SYNTHESIZED);
    this.starts.push(type, id, this.offset);
    this.s.synthesizedCount++;
  }

  protected closeOpenMessages(end: MessageEnd | undefined): void {
    for (let i = 0; i < this.list.length; i++) {
      const message = this.list.at(i)!;
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

  protected indexForWrite(): IdIndex<number> {
    if (!this.indexCopied) {
      this.s.messageIndex = IdIndex.from(this.base.messageIndex);
      this.indexCopied = true;
    }
    return this.s.messageIndex as IdIndex<number>;
  }

  protected ownerForWrite(): IdIndex<string> {
    if (!this.ownerCopied) {
      this.s.toolCallOwner = IdIndex.from(this.base.toolCallOwner);
      this.ownerCopied = true;
    }
    return this.s.toolCallOwner as IdIndex<string>;
  }

  /** The position of message `id`, or undefined. */
  protected indexOf(id: string): number | undefined {
    if (id === this.lastId) return this.lastAt;
    const i = this.s.messageIndex.get(id);
    if (i !== undefined) {
      this.lastId = id;
      this.lastAt = i;
    }
    return i;
  }

  protected getMessage(id: string): RunMessage | undefined {
    const i = this.indexOf(id);
    return i === undefined ? undefined : this.list.at(i);
  }

  /** A copy of the message this batch may mutate (made once per batch). */
  protected writableMessage(id: string): RunMessage {
    return this.writableAt(this.indexOf(id)!);
  }

  /** `writableMessage` by position, for callers that already looked the id up. */
  protected writableAt(i: number): RunMessage {
    const current = this.list.at(i)!;
    // A message past the base's end was added by this batch: it is this batch's own.
    if (i >= this.list.baseLength || this.isFresh(current)) return current;
    const copy = { ...current } as RunMessage;
    this.markFresh(copy);
    this.list.set(i, copy);
    return copy;
  }

  /** Appends a message that holds no tool calls (so the owner index has nothing to learn). */
  private pushMessage(message: RunMessage): RunMessage {
    const at = this.list.push(message);
    this.lastId = message.id;
    this.lastAt = at;
    this.indexForWrite().set(message.id, at);
    return message;
  }

  protected addMessage(message: RunMessage): RunMessage {
    this.pushMessage(message);
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner.set(call.id, message.id);
    }
    return message;
  }

  /** Insert, or replace in place (keeping its position), a whole message. */
  protected putMessage(message: RunMessage): void {
    const i = this.indexOf(message.id);
    if (i === undefined) {
      this.addMessage(message);
      return;
    }
    // The replaced message's tool calls stop pointing at it (the replacement may lack them,
    // or not be an assistant message at all); the replacement's own calls are registered.
    const replaced = this.list.at(i)!;
    if (replaced.role === 'assistant' && replaced.toolCalls !== undefined) {
      const owner = this.ownerForWrite();
      for (const call of replaced.toolCalls) {
        if (owner.get(call.id) === message.id) owner.delete(call.id);
      }
    }
    this.markFresh(message);
    this.list.set(i, message);
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner.set(call.id, message.id);
    }
  }

  protected openMessage(id: string, role: RunMessage['role'], name?: string): RunMessage {
    const i = this.indexOf(id);
    if (i !== undefined) {
      const message = this.writableAt(i);
      message.streaming = true;
      return message;
    }
    return this.newMessage(id, role, name);
  }

  /** A streaming message for an id the index lacks (the caller looked it up once). */
  private newMessage(id: string, role: RunMessage['role'], name?: string): RunMessage {
    const message = { id, role, content: '', streaming: true } as RunMessage;
    if (name !== undefined) (message as { name?: string }).name = name;
    return this.pushMessage(message);
  }

  /** The message a CONTENT/END refers to, synthesizing its START when it was never seen. */
  protected ensureMessage(
    id: string,
    role: 'assistant' | 'reasoning',
    startType: EventType,
  ): RunMessage {
    // One lookup: a join mid-stream pays it for every id it has never seen.
    const i = this.indexOf(id);
    if (i !== undefined) return this.writableAt(i);
    this.synthesize(startType, id);
    return this.newMessage(id, role);
  }

  /**
   * A CONTENT's delta into message `id`. An id never seen (a join mid-stream) becomes a
   * message holding just the delta, its START synthesized: one lookup, one object.
   */
  protected appendTo(
    id: string,
    role: 'assistant' | 'reasoning',
    startType: EventType,
    delta: string,
  ): void {
    const i = this.indexOf(id);
    if (i !== undefined) {
      this.appendContent(this.writableAt(i), delta);
      return;
    }
    this.synthesize(startType, id);
    this.pushMessage({ id, role, content: delta, streaming: true } as RunMessage);
  }

  protected appendContent(message: RunMessage, delta: string): void {
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

  protected endMessage(message: RunMessage): void {
    delete message.streaming;
  }

  protected setEncryptedValue(subtype: string, entityId: string, value: string): void {
    if (subtype === 'tool-call') {
      if (!this.s.toolCallOwner.has(entityId)) return;
      this.writableToolCall(entityId).encryptedValue = value;
    } else if (this.s.messageIndex.has(entityId)) {
      (this.writableMessage(entityId) as { encryptedValue?: string }).encryptedValue = value;
    }
  }

  // ── chunks ───────────────────────────────────────────────────────────────────────────

  protected chunk(
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
      kind === 'toolCall' ? this.s.toolCallOwner.has(target) : this.s.messageIndex.has(target);
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

  protected closeChunk(kind: ChunkKind): void {
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
      if (this.s.toolCallOwner.has(id)) delete this.writableToolCall(id).streaming;
    } else if (this.s.messageIndex.has(id)) {
      delete this.writableMessage(id).streaming;
    }
  }

  // ── tool calls ───────────────────────────────────────────────────────────────────────

  protected openToolCall(toolCallId: string, name: string, parentMessageId?: string): RunToolCall {
    if (this.s.toolCallOwner.has(toolCallId)) {
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
      this.ownerForWrite().set(toolCallId, id);
      return call;
    }
    const message = this.writableMessage(ownerId);
    const calls = message.toolCalls;
    if (calls !== undefined && this.isFresh(calls)) {
      calls.push(call);
      this.positions?.pushed(calls, toolCallId);
    } else {
      message.toolCalls = [...(calls ?? []), call];
      this.markFresh(message.toolCalls);
    }
    this.ownerForWrite().set(toolCallId, ownerId);
    return call;
  }

  /** The tool call an ARGS/END refers to, synthesizing its START when it was never seen. */
  protected ensureToolCall(toolCallId: string): RunToolCall {
    if (this.s.toolCallOwner.has(toolCallId)) return this.writableToolCall(toolCallId);
    this.synthesize(EventType.TOOL_CALL_START, toolCallId);
    return this.openToolCall(toolCallId, '');
  }

  protected writableToolCall(toolCallId: string): RunToolCall {
    const message = this.writableMessage(this.s.toolCallOwner.get(toolCallId)!);
    let calls = message.toolCalls!;
    if (!this.isFresh(calls)) {
      calls = [...calls];
      message.toolCalls = calls;
      this.markFresh(calls);
    }
    this.positions ??= new CallPositions();
    const i = this.positions.of(calls, toolCallId);
    const current = calls[i]!;
    if (this.isFresh(current)) return current;
    const copy = { ...current };
    this.markFresh(copy);
    calls[i] = copy;
    return copy;
  }

  protected stepsForWrite(): StepState[] {
    if (this.s.steps === this.base.steps) this.s.steps = this.base.steps.slice();
    return this.s.steps as StepState[];
  }

  protected eventsForWrite(): AppEvent[] {
    if (this.s.events === this.base.events) this.s.events = this.base.events.slice();
    return this.s.events as AppEvent[];
  }
}
