import type {
  CustomEvent,
  EventType,
  Message,
  RawEvent,
  RunFinishedOutcome,
  SubagentErrorEvent,
  SubagentFinishedEvent,
  SubagentStartedEvent,
  ToolCall,
} from '@ag-ui/core';
import type { ErrorCode } from './errors.js';
import { NO_CHUNKS, type OpenChunks } from './open-chunks.js';

export type { OpenChunks } from './open-chunks.js';

/** `running` until a terminal event; `idle` before the first event. */
export type RunStatus = 'idle' | 'running' | 'finished' | 'cancelled' | 'error';

/** How a message that was still open ended: its run was cancelled, or failed. */
export type MessageEnd = 'stopped' | 'error';

/** A tool call as the fold keeps it: AG-UI's shape, plus whether its arguments still stream. */
export type RunToolCall = ToolCall & { streaming?: true };

/**
 * An AG-UI message plus two facts a chat UI needs and AG-UI messages lack: whether it is
 * still streaming, and whether it was cut short. Everything else is AG-UI's `Message`.
 */
export type RunMessage = Message & {
  streaming?: true;
  ended?: MessageEnd;
  toolCalls?: RunToolCall[];
};

export interface StepState {
  name: string;
  status: 'running' | 'finished';
}

/** Events kept verbatim for the application (the fold gives them no meaning). */
export type AppEvent =
  | CustomEvent
  | RawEvent
  | SubagentStartedEvent
  | SubagentFinishedEvent
  | SubagentErrorEvent;

export interface FoldWarning {
  /** Offset of the offending envelope; null when it had none. */
  offset: number | null;
  code: ErrorCode;
  message: string;
}

/** A START the fold made up because the stream joined after the real one. */
export interface SynthesizedStart {
  type: EventType;
  /** The run, message or tool call it opened. */
  id: string;
  /** Offset of the event that needed it (synthesized events have none of their own). */
  atOffset: number;
}

export interface RunError {
  message: string;
  code?: string;
}

export interface RunState {
  /** The resume point: highest offset applied, 0 when none. */
  readonly offset: number;
  readonly runId: string | null;
  readonly threadId: string | null;
  readonly status: RunStatus;
  readonly outcome: RunFinishedOutcome | null;
  readonly error: RunError | null;
  /** In the order they were first seen. */
  readonly messages: readonly RunMessage[];
  /**
   * message id → position in `messages`. A Map (ids are data, never object keys): a plain
   * one in a new or snapshot state, the fold's sharded `IdIndex` once a batch has added to it.
   */
  readonly messageIndex: ReadonlyMap<string, number>;
  /** tool call id → id of the assistant message holding it. */
  readonly toolCallOwner: ReadonlyMap<string, string>;
  /** Application state from STATE_SNAPSHOT / STATE_DELTA. */
  readonly state: unknown;
  readonly steps: readonly StepState[];
  readonly events: readonly AppEvent[];
  /** The most recent warnings (at most `MAX_WARNINGS`); `warningCount` counts them all. */
  readonly warnings: readonly FoldWarning[];
  readonly warningCount: number;
  /**
   * The most recent STARTs the fold made up (at most `MAX_SYNTHESIZED`);
   * `synthesizedCount` counts them all. Bounded like `warnings`: a join into a long run can
   * synthesize one per message.
   */
  readonly synthesized: readonly SynthesizedStart[];
  readonly synthesizedCount: number;
  /** Ids of the messages / tool calls that `*_CHUNK` events without an id continue. */
  readonly openChunks: OpenChunks;
}

export const MAX_WARNINGS = 50;
export const MAX_SYNTHESIZED = 50;

/** The folded state of a run as `GET /runs/{id}` serves it (protocol.md). */
export interface RunSnapshot {
  runId: string;
  threadId: string;
  status: Exclude<RunStatus, 'idle'>;
  lastOffset: number;
  messages: RunMessage[];
  state?: unknown;
  outcome?: RunFinishedOutcome;
  error?: RunError;
  /**
   * The `*_CHUNK` blocks open at `lastOffset`, when any: a chunk without an id after the
   * snapshot continues the block named here, as it would have without the snapshot.
   */
  openChunks?: OpenChunks;
}

export interface CreateRunStateOptions {
  /**
   * Start from this resume point instead of 0, to join a run mid-stream without its
   * earlier events (its first events then synthesize the STARTs they lack).
   * @default 0
   */
  from?: number;
  runId?: string;
  threadId?: string;
}

export function createRunState(options: CreateRunStateOptions = {}): RunState {
  return {
    offset: options.from ?? 0,
    runId: options.runId ?? null,
    threadId: options.threadId ?? null,
    status: 'idle',
    outcome: null,
    error: null,
    messages: [],
    messageIndex: new Map(),
    toolCallOwner: new Map(),
    state: undefined,
    steps: [],
    events: [],
    warnings: [],
    warningCount: 0,
    synthesized: [],
    synthesizedCount: 0,
    openChunks: NO_CHUNKS,
  };
}

export function isTerminalStatus(status: RunStatus): boolean {
  return status === 'finished' || status === 'cancelled' || status === 'error';
}

/** The plain text of a message's content (text parts joined). */
export function messageText(message: { content?: unknown }): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    let text = '';
    for (const part of content) {
      if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text') {
        text += String((part as { text?: unknown }).text ?? '');
      }
    }
    return text;
  }
  return '';
}
