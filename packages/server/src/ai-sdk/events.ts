import { tokenUsageFromAiSdkUsage } from '@ag-ui/core';
import { type AGUIEvent, EventType, ResumableError } from '@resumable/protocol';
import type { TextStreamPart, ToolSet } from 'ai';
import { streamInterrupts } from './interrupts.js';

/** What the adapter reads: `result.fullStream`, or any async iterable of its parts. */
export type AiSdkStreamPart = TextStreamPart<ToolSet>;

/** `aiSdkEvents`' options: the run the events are for. */
export interface AiSdkEventsOptions {
  /** The run's id: message ids are derived from it, so they are unique in the thread. */
  runId: string;
  /**
   * The thread's id, for `RUN_FINISHED` (the run manager sets it anyway).
   * @default ''
   */
  threadId?: string;
  /**
   * Aborted on cancel: an `abort` part then ends the run quietly (the manager says cancelled).
   * @default undefined (every `abort` part is an error)
   */
  signal?: AbortSignal;
  /**
   * Reported with the usage on `RUN_FINISHED` (the model id comes from the stream).
   * @default undefined (no provider field)
   */
  provider?: string;
}

/** Which AG-UI message or tool call an open AI SDK block (by its stream id) writes to. */
interface Blocks {
  text: Map<string, string>;
  reasoning: Map<string, string>;
  /** Tool calls whose input is streaming; a `tool-call` part closes them. */
  input: Set<string>;
}

/**
 * The AI SDK's `fullStream` parts as AG-UI events. Text and reasoning blocks become
 * messages, streamed tool input `TOOL_CALL_ARGS`, tool results `TOOL_CALL_RESULT`, `finish`
 * a `RUN_FINISHED` with the usage; a run that leaves tool calls waiting (approvals the SDK
 * asked for, calls of client-side tools) ends with their interrupts (see interrupts.ts). An `error` part, or a stream that ends without `finish`, throws
 * `upstream_failed`; an `abort` part caused by our cancel ends quietly.
 *
 * Message ids: the assistant message of step n is `msg-<runId>` (n = 1) or
 * `msg-<runId>-<n>`; a step's later text blocks and every reasoning block get their own.
 */
export async function* aiSdkEvents(
  parts: AsyncIterable<AiSdkStreamPart>,
  options: AiSdkEventsOptions,
): AsyncGenerator<AGUIEvent> {
  const { runId } = options;
  const blocks: Blocks = { text: new Map(), reasoning: new Map(), input: new Set() };
  let step = 1;
  let stepsSeen = 0;
  let seq = 0;
  /** The step's assistant message id: tool calls hang on it. */
  let stepMessage = `msg-${runId}`;
  /** The id the step's next text block takes: the step's own until a block or call used it. */
  let nextTextId: string | undefined = stepMessage;
  let model: string | undefined;
  /** Tool calls with no result in the stream, by id → tool name: the client runs them. */
  const pending = new Map<string, string>();
  /** Tool calls the SDK holds for a person's approval (`needsApproval`), id → tool name. */
  const approvals = new Map<string, string>();
  const openText = (id: string): AGUIEvent => {
    const messageId = nextTextId ?? `msg-${runId}-${step}-${++seq}`;
    nextTextId = undefined;
    blocks.text.set(id, messageId);
    return { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
  };
  const openReasoning = (id: string): AGUIEvent[] => {
    const messageId = `reasoning-${runId}-${++seq}`;
    blocks.reasoning.set(id, messageId);
    return [
      { type: EventType.REASONING_START, messageId },
      { type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' },
    ];
  };
  const startCall = (toolCallId: string, toolCallName: string): AGUIEvent => {
    // The call belongs to the step's message: the text before it, or one made for it.
    nextTextId = undefined;
    pending.set(toolCallId, toolCallName);
    return {
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName,
      parentMessageId: stepMessage,
    };
  };

  for await (const part of parts) {
    switch (part.type) {
      case 'start-step':
        // The first step keeps `msg-<runId>`; each later one (after tool calls) its own.
        if (++stepsSeen > 1) {
          step = stepsSeen;
          stepMessage = `msg-${runId}-${step}`;
          nextTextId = stepMessage;
        }
        break;
      case 'text-start':
        yield openText(part.id);
        break;
      case 'text-delta':
        if (part.text === '') break;
        if (!blocks.text.has(part.id)) yield openText(part.id);
        yield {
          type: EventType.TEXT_MESSAGE_CONTENT,
          messageId: blocks.text.get(part.id)!,
          delta: part.text,
        };
        break;
      case 'text-end':
        yield* closeBlock(blocks.text, part.id, textEnd);
        break;
      case 'reasoning-start':
        yield* openReasoning(part.id);
        break;
      case 'reasoning-delta':
        if (part.text === '') break;
        if (!blocks.reasoning.has(part.id)) yield* openReasoning(part.id);
        yield {
          type: EventType.REASONING_MESSAGE_CONTENT,
          messageId: blocks.reasoning.get(part.id)!,
          delta: part.text,
        };
        break;
      case 'reasoning-end':
        yield* closeBlock(blocks.reasoning, part.id, reasoningEnd);
        break;
      case 'tool-input-start':
        blocks.input.add(part.id);
        yield startCall(part.id, part.toolName);
        break;
      case 'tool-input-delta':
        if (part.delta !== '' && blocks.input.has(part.id)) {
          yield { type: EventType.TOOL_CALL_ARGS, toolCallId: part.id, delta: part.delta };
        }
        break;
      case 'tool-input-end':
        // The call ends with its `tool-call` part, which carries the parsed input.
        break;
      case 'tool-call':
        if (!blocks.input.delete(part.toolCallId)) {
          // Not streamed (some providers, or a repaired call): the whole input at once.
          yield startCall(part.toolCallId, part.toolName);
          yield {
            type: EventType.TOOL_CALL_ARGS,
            toolCallId: part.toolCallId,
            delta: JSON.stringify(part.input ?? {}),
          };
        }
        yield { type: EventType.TOOL_CALL_END, toolCallId: part.toolCallId };
        break;
      case 'tool-result':
        if (part.preliminary === true) break;
        pending.delete(part.toolCallId);
        yield toolResult(part.toolCallId, resultText(part.output));
        break;
      case 'tool-approval-request':
        // An automatic decision is the SDK's own; only a person's is an interrupt.
        if (part.isAutomatic !== true) {
          approvals.set(part.toolCall.toolCallId, part.toolCall.toolName);
        }
        break;
      case 'tool-output-denied':
        pending.delete(part.toolCallId);
        yield toolResult(part.toolCallId, JSON.stringify({ error: 'denied' }));
        break;
      case 'tool-error':
        pending.delete(part.toolCallId);
        yield toolResult(part.toolCallId, JSON.stringify({ error: messageOf(part.error) }));
        break;
      case 'finish-step':
        model = part.response.modelId || model;
        break;
      case 'error':
        throw new ResumableError('upstream_failed', `the model failed: ${messageOf(part.error)}`);
      case 'abort':
        if (options.signal?.aborted) return;
        throw new ResumableError(
          'upstream_failed',
          `the model call was aborted${part.reason ? `: ${part.reason}` : ''}`,
        );
      case 'finish': {
        yield* closeOpen(blocks);
        const usage = tokenUsageFromAiSdkUsage(part.totalUsage, {
          ...(options.provider === undefined ? {} : { provider: options.provider }),
          ...(model === undefined ? {} : { model }),
        });
        yield {
          type: EventType.RUN_FINISHED,
          threadId: options.threadId ?? '',
          runId,
          outcome:
            pending.size > 0
              ? { type: 'interrupt', interrupts: streamInterrupts(approvals, pending) }
              : { type: 'success' },
          ...(usage === undefined ? {} : { usage: [usage] }),
        } as AGUIEvent;
        return;
      }
      default:
        // start, sources, files, custom, raw, ping, approvals: nothing AG-UI folds.
        break;
    }
  }
  if (options.signal?.aborted) return;
  throw new ResumableError('upstream_failed', 'the model stream ended without finishing');
}

function toolResult(toolCallId: string, content: string): AGUIEvent {
  return {
    type: EventType.TOOL_CALL_RESULT,
    messageId: `result-${toolCallId}`,
    toolCallId,
    content,
    role: 'tool',
  };
}

const textEnd = (messageId: string): AGUIEvent[] => [
  { type: EventType.TEXT_MESSAGE_END, messageId },
];
const reasoningEnd = (messageId: string): AGUIEvent[] => [
  { type: EventType.REASONING_MESSAGE_END, messageId },
  { type: EventType.REASONING_END, messageId },
];

/** The end of one open block (nothing for a block that never started). */
function closeBlock(
  open: Map<string, string>,
  id: string,
  end: (messageId: string) => AGUIEvent[],
): AGUIEvent[] {
  const messageId = open.get(id);
  if (messageId === undefined) return [];
  open.delete(id);
  return end(messageId);
}

/** Ends blocks a provider left open, so the fold sees every message closed before the end. */
function closeOpen(blocks: Blocks): AGUIEvent[] {
  const events = [
    ...[...blocks.text.values()].flatMap(textEnd),
    ...[...blocks.reasoning.values()].flatMap(reasoningEnd),
    ...[...blocks.input].map(
      (toolCallId): AGUIEvent => ({ type: EventType.TOOL_CALL_END, toolCallId }),
    ),
  ];
  blocks.text.clear();
  blocks.reasoning.clear();
  blocks.input.clear();
  return events;
}

function resultText(output: unknown): string {
  return typeof output === 'string' ? output : (JSON.stringify(output) ?? 'null');
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}
