import type { AGUIEvent } from '@resumable/protocol';
import { EventType, ResumableError } from '@resumable/protocol';
import type { ChunkDelta } from './openai-chunks.js';
import { clientToolInterrupt, interruptIdOf } from './tool-interrupts.js';

/**
 * One streamed Chat Completions answer as AG-UI events. The model's thinking is a
 * reasoning message (`reasoning-<runId>-<n>`, n from 1), ended by the first delta of
 * anything else (text, a tool call) or by the end of the answer, so a model that thinks
 * again after a tool call starts a new one; the text is one message (`msg-<runId>`) that
 * the tool calls hang on, ended at the end of the answer.
 */
export class OpenAIAnswer {
  readonly messageId: string;
  /** The open reasoning message's id; null when the model is not thinking. */
  private reasoningId: string | null = null;
  private reasonings = 0;
  private textOpen = false;
  /** index → the toolCallId its deltas continue (a new id at an index starts a new call). */
  private readonly calls = new Map<number, string>();
  /** toolCallId → tool name, in the order calls started: each a `client_tool` interrupt at the end. */
  private readonly names = new Map<string, string>();
  private readonly interruptIds = new Set<string>();

  constructor(
    private readonly runId: string,
    /** Names the upstream in errors. */
    private readonly what: string,
    /** Calls one answer may make (`maxToolCalls`): one POST must answer them all. */
    private readonly maxToolCalls: number,
  ) {
    this.messageId = `msg-${runId}`;
  }

  /** The events one checked chunk adds: its thinking first, then its text and tool calls. */
  *push(delta: ChunkDelta): Generator<AGUIEvent> {
    const { messageId } = this;
    if (delta.reasoning) {
      if (this.reasoningId === null) {
        this.reasoningId = `reasoning-${this.runId}-${++this.reasonings}`;
        yield {
          type: EventType.REASONING_MESSAGE_START,
          messageId: this.reasoningId,
          role: 'reasoning',
        };
      }
      yield {
        type: EventType.REASONING_MESSAGE_CONTENT,
        messageId: this.reasoningId,
        delta: delta.reasoning,
      };
    }
    if (delta.content || delta.toolCalls.length > 0) yield* this.endReasoning();
    if (delta.content) {
      if (!this.textOpen) {
        this.textOpen = true;
        yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
      }
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: delta.content };
    }
    for (const call of delta.toolCalls) {
      let toolCallId = this.calls.get(call.index);
      // Servers that number every call 0 (older vLLM, Ollama) tell calls apart by id only.
      if (toolCallId === undefined || (call.id !== undefined && call.id !== toolCallId)) {
        toolCallId = call.id ?? `call-${this.runId}-${call.index}`;
        this.claim(toolCallId);
        this.calls.set(call.index, toolCallId);
        this.names.set(toolCallId, call.name ?? 'unknown');
        yield {
          type: EventType.TOOL_CALL_START,
          toolCallId,
          toolCallName: call.name ?? 'unknown',
          parentMessageId: messageId,
        };
      }
      if (call.args) yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: call.args };
    }
  }

  /**
   * The events of a complete answer's end: what is open is ended, and tool calls make the
   * run end with their `client_tool` interrupts.
   */
  *finish(threadId: string): Generator<AGUIEvent> {
    yield* this.endReasoning();
    if (this.textOpen) yield { type: EventType.TEXT_MESSAGE_END, messageId: this.messageId };
    for (const toolCallId of this.names.keys()) yield { type: EventType.TOOL_CALL_END, toolCallId };
    if (this.names.size === 0) return;
    const interrupts = [...this.names].map(([id, name]) => clientToolInterrupt(id, name));
    yield {
      type: EventType.RUN_FINISHED,
      threadId,
      runId: this.runId,
      outcome: { type: 'interrupt', interrupts },
    };
  }

  private *endReasoning(): Generator<AGUIEvent> {
    if (this.reasoningId === null) return;
    yield { type: EventType.REASONING_MESSAGE_END, messageId: this.reasoningId };
    this.reasoningId = null;
  }

  /**
   * Two calls under one id (or ids that make one interrupt id: `a/b` and `a_b`) would be
   * one interrupt answering both: not a stream to guess at.
   */
  private claim(toolCallId: string): void {
    if (this.names.size === this.maxToolCalls) {
      throw new ResumableError(
        'upstream_failed',
        `${this.what} sent ${this.maxToolCalls + 1} tool calls (at most ${this.maxToolCalls}: maxToolCalls)`,
      );
    }
    const interruptId = interruptIdOf('tool', toolCallId);
    if (this.interruptIds.has(interruptId)) {
      throw new ResumableError(
        'upstream_failed',
        `${this.what} sent two tool calls with the id ${JSON.stringify(toolCallId)}${this.names.has(toolCallId) ? '' : ` (as an interrupt: ${interruptId})`}`,
      );
    }
    this.interruptIds.add(interruptId);
  }
}
