import { BatchMessages } from './batch-messages.js';
import { CallPositions } from './call-positions.js';
import { copyMessage, copyToolCall, withArguments } from './copy-message.js';
import type { ErrorCode } from './errors.js';
import { EventType } from './events.js';
import { IdIndex } from './id-index.js';
import { NO_CHUNKS } from './open-chunks.js';
import { appendRecent, keepRecent, RecentStarts } from './recent-list.js';
import type {
  AppEvent,
  FoldWarning,
  MessageEnd,
  RunMessage,
  RunState,
  RunToolCall,
  StepState,
} from './state.js';
import { MAX_SYNTHESIZED, MAX_WARNINGS } from './state.js';
import { copyRunState, type Mutable } from './writable-state.js';

export type ChunkKind = 'text' | 'toolCall' | 'reasoning';

/**
 * One batch's working copy and the operations on its messages, tool calls and chunks (what
 * each event means is fold.ts's `applyEvent`, which calls these). What the batch writes is
 * copied once and remembered as fresh, so later deltas in the batch mutate its own copy.
 * Nothing reachable from the input state is ever written.
 */
export class DraftState {
  readonly base: RunState;
  /** The state this batch makes: `base` shallow-copied, each part copied on its first write. */
  readonly next: Mutable<RunState>;
  /** `next.messages` while the batch runs (it becomes that array at `finish`). */
  readonly messageList: BatchMessages;
  /** Objects this batch created (so it may write them): the first, then a Set for more. */
  private freshOne: object | null = null;
  private freshMore: Set<object> | null = null;
  /** The offset of the event being applied (warnings and synthesized STARTs carry it). */
  offset = 0;
  /** The STARTs this batch synthesized (null until the first). */
  private starts: RecentStarts | null = null;
  /** The id last looked up or added, and its position: a stream writes one message at a time. */
  private lastId = '';
  /** -1 until the first: ids are data, so no id value can mean "none". */
  private lastAt = -1;
  private positions: CallPositions | null = null;

  constructor(base: RunState) {
    this.base = base;
    this.next = copyRunState(base);
    this.messageList = new BatchMessages(base.messages);
  }

  private isFresh(value: object): boolean {
    return value === this.freshOne || this.freshMore?.has(value) === true;
  }

  private markFresh(value: object): void {
    if (this.freshOne === null) this.freshOne = value;
    else {
      this.freshMore ??= new Set();
      this.freshMore.add(value);
    }
  }

  finish(offset: number): RunState {
    this.next.offset = offset;
    this.next.messages = this.messageList.result();
    keepRecent(this.next.warnings, this.base.warnings, MAX_WARNINGS);
    if (this.starts !== null) this.next.synthesized = this.starts.after(this.base.synthesized);
    return this.next;
  }

  warn(offset: number | null, code: ErrorCode, message: string): void {
    const warning: FoldWarning = { offset, code, message };
    this.next.warnings = appendRecent(
      this.next.warnings,
      this.base.warnings,
      warning,
      MAX_WARNINGS,
    );
    this.next.warningCount++;
  }

  // ── run ──────────────────────────────────────────────────────────────────────────────

  startRun(runId: string | null, threadId: string | null): void {
    this.next.status = 'running';
    if (runId !== null) this.next.runId = runId;
    if (threadId !== null) this.next.threadId = threadId;
  }

  synthesize(type: EventType, id: string): void {
    this.starts ??= new RecentStarts(MAX_SYNTHESIZED);
    this.starts.push(type, id, this.offset);
    this.next.synthesizedCount++;
  }

  closeOpenMessages(end: MessageEnd | undefined): void {
    for (let i = 0; i < this.messageList.length; i++) {
      const message = this.messageList.at(i)!;
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
    this.next.openChunks = NO_CHUNKS;
  }

  // ── messages ─────────────────────────────────────────────────────────────────────────

  private indexForWrite(): IdIndex<number> {
    if (this.next.messageIndex === this.base.messageIndex) {
      this.next.messageIndex = IdIndex.from(this.base.messageIndex);
    }
    return this.next.messageIndex as IdIndex<number>;
  }

  private ownerForWrite(): IdIndex<string> {
    if (this.next.toolCallOwner === this.base.toolCallOwner) {
      this.next.toolCallOwner = IdIndex.from(this.base.toolCallOwner);
    }
    return this.next.toolCallOwner as IdIndex<string>;
  }

  /** The position of message `id`, or undefined. */
  private indexOf(id: string): number | undefined {
    if (this.lastAt !== -1 && id === this.lastId) return this.lastAt;
    const i = this.next.messageIndex.get(id);
    if (i !== undefined) {
      this.lastId = id;
      this.lastAt = i;
    }
    return i;
  }

  getMessage(id: string): RunMessage | undefined {
    const i = this.indexOf(id);
    return i === undefined ? undefined : this.messageList.at(i);
  }

  /** A copy of the message this batch may mutate (made once per batch). */
  writableMessage(id: string): RunMessage {
    return this.writableAt(this.indexOf(id)!);
  }

  /** `writableMessage` by position, for callers that already looked the id up. */
  private writableAt(i: number): RunMessage {
    const current = this.messageList.at(i)!;
    // A message past the base's end was added by this batch: it is this batch's own.
    if (i >= this.messageList.baseLength || this.isFresh(current)) return current;
    const copy = copyMessage(current);
    this.markFresh(copy);
    this.messageList.set(i, copy);
    return copy;
  }

  /** Appends a message that holds no tool calls (so the owner index has nothing to learn). */
  private pushMessage(message: RunMessage): RunMessage {
    const at = this.messageList.push(message);
    this.lastId = message.id;
    this.lastAt = at;
    this.indexForWrite().set(message.id, at);
    return message;
  }

  private addMessage(message: RunMessage): RunMessage {
    this.pushMessage(message);
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner.set(call.id, message.id);
    }
    return message;
  }

  /** Insert, or replace in place (keeping its position), a whole message. */
  putMessage(message: RunMessage): void {
    const i = this.indexOf(message.id);
    if (i === undefined) {
      this.addMessage(message);
      return;
    }
    // The replaced message's tool calls stop pointing at it (the replacement may lack them,
    // or not be an assistant message at all); the replacement's own calls are registered.
    const replaced = this.messageList.at(i)!;
    if (replaced.role === 'assistant' && replaced.toolCalls !== undefined) {
      const owner = this.ownerForWrite();
      for (const call of replaced.toolCalls) {
        if (owner.get(call.id) === message.id) owner.delete(call.id);
      }
    }
    this.markFresh(message);
    this.messageList.set(i, message);
    if (message.role === 'assistant' && message.toolCalls) {
      const owner = this.ownerForWrite();
      for (const call of message.toolCalls) owner.set(call.id, message.id);
    }
  }

  openMessage(id: string, role: RunMessage['role'], name?: string): RunMessage {
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
  ensureMessage(id: string, role: 'assistant' | 'reasoning', startType: EventType): RunMessage {
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
  appendTo(id: string, role: 'assistant' | 'reasoning', startType: EventType, delta: string): void {
    const i = this.indexOf(id);
    if (i !== undefined) {
      this.appendContent(this.writableAt(i), delta);
      return;
    }
    this.synthesize(startType, id);
    this.pushMessage({ id, role, content: delta, streaming: true } as RunMessage);
  }

  appendContent(message: RunMessage, delta: string): void {
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

  endMessage(message: RunMessage): void {
    delete message.streaming;
  }

  setEncryptedValue(subtype: string, entityId: string, value: string): void {
    if (subtype === 'tool-call') {
      if (!this.next.toolCallOwner.has(entityId)) return;
      this.writableToolCall(entityId).encryptedValue = value;
    } else if (this.next.messageIndex.has(entityId)) {
      (this.writableMessage(entityId) as { encryptedValue?: string }).encryptedValue = value;
    }
  }

  // ── chunks ───────────────────────────────────────────────────────────────────────────

  chunk(
    kind: ChunkKind,
    id: string | undefined,
    delta: string | undefined,
    open: () => void,
  ): void {
    const open_ = this.next.openChunks[kind];
    const target = id ?? open_;
    if (target === undefined) {
      this.warn(this.offset, 'malformed_event', `a ${kind} chunk without an id continues nothing`);
      return;
    }
    if (open_ !== undefined && open_ !== target) this.closeChunk(kind);
    const exists =
      kind === 'toolCall'
        ? this.next.toolCallOwner.has(target)
        : this.next.messageIndex.has(target);
    if (!exists) {
      if (id === undefined) {
        this.warn(this.offset, 'malformed_event', `a ${kind} chunk continues "${target}", unknown`);
        return;
      }
      open();
    }
    if (this.next.openChunks[kind] !== target) {
      this.next.openChunks = { ...this.next.openChunks, [kind]: target };
    }
    if (delta === undefined || delta === '') return;
    if (kind === 'toolCall') {
      const call = this.writableToolCall(target);
      call.function = withArguments(call.function, call.function.arguments + delta);
    } else {
      this.appendContent(this.writableMessage(target), delta);
    }
  }

  closeChunk(kind: ChunkKind): void {
    const id = this.next.openChunks[kind]!;
    const rest: { text?: string; toolCall?: string; reasoning?: string } = {
      ...this.next.openChunks,
    };
    delete rest[kind];
    this.next.openChunks =
      rest.text === undefined && rest.toolCall === undefined && rest.reasoning === undefined
        ? NO_CHUNKS
        : rest;
    if (kind === 'toolCall') {
      if (this.next.toolCallOwner.has(id)) delete this.writableToolCall(id).streaming;
    } else if (this.next.messageIndex.has(id)) {
      delete this.writableMessage(id).streaming;
    }
  }

  // ── tool calls ───────────────────────────────────────────────────────────────────────

  openToolCall(toolCallId: string, name: string, parentMessageId?: string): RunToolCall {
    if (this.next.toolCallOwner.has(toolCallId)) {
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
  ensureToolCall(toolCallId: string): RunToolCall {
    if (this.next.toolCallOwner.has(toolCallId)) return this.writableToolCall(toolCallId);
    this.synthesize(EventType.TOOL_CALL_START, toolCallId);
    return this.openToolCall(toolCallId, '');
  }

  writableToolCall(toolCallId: string): RunToolCall {
    const message = this.writableMessage(this.next.toolCallOwner.get(toolCallId)!);
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
    const copy = copyToolCall(current);
    this.markFresh(copy);
    calls[i] = copy;
    return copy;
  }

  stepsForWrite(): StepState[] {
    if (this.next.steps === this.base.steps) this.next.steps = this.base.steps.slice();
    return this.next.steps as StepState[];
  }

  eventsForWrite(): AppEvent[] {
    if (this.next.events === this.base.events) this.next.events = this.base.events.slice();
    return this.next.events as AppEvent[];
  }
}
