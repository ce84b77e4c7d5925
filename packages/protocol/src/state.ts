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
export type RunToolCall = ToolCall & {
  /** Present (`true`) while its arguments are still streaming (TOOL_CALL_ARGS before END). */
  streaming?: true;
};

/**
 * An AG-UI message plus two facts a chat UI needs and AG-UI messages lack: whether it is
 * still streaming, and whether it was cut short. Everything else is AG-UI's `Message`.
 */
export type RunMessage = Message & {
  /** Present (`true`) while the message is still open (no END event yet). */
  streaming?: true;
  /** Set when the run ended while it was open: `stopped` if cancelled, `error` if it failed. */
  ended?: MessageEnd;
  /** An assistant message's tool calls, each marked while its arguments stream. */
  toolCalls?: RunToolCall[];
};

/** An AG-UI step (`STEP_STARTED` / `STEP_FINISHED`) of the run. */
export interface StepState {
  /** The step's name, as the agent gave it. */
  name: string;
  /** Whether it finished. */
  status: 'running' | 'finished';
}

/** Events kept verbatim for the application (the fold gives them no meaning). */
export type AppEvent =
  | CustomEvent
  | RawEvent
  | SubagentStartedEvent
  | SubagentFinishedEvent
  | SubagentErrorEvent;

/** An event the fold could not apply (malformed, unknown, out of place): it went on without it. */
export interface FoldWarning {
  /** Offset of the offending envelope; null when it had none. */
  offset: number | null;
  /** Why, as an error code (`malformed_event`, `unknown_event`, `bad_patch`…). */
  code: ErrorCode;
  /** What was wrong, in words. */
  message: string;
}

/** A START the fold made up because the stream joined after the real one. */
export interface SynthesizedStart {
  /** The START event's type (`TEXT_MESSAGE_START`, `TOOL_CALL_START`…). */
  type: EventType;
  /** The run, message or tool call it opened. */
  id: string;
  /** Offset of the event that needed it (synthesized events have none of their own). */
  atOffset: number;
}

/** Why a run failed: its `RUN_ERROR`'s message and code. */
export interface RunError {
  /** The agent's or the server's words. */
  message: string;
  /** The `RUN_ERROR` code (`agent_lost`, `run_timeout`, an agent's own…), when it had one. */
  code?: string;
}

/** A run's log folded: what it shows, where it stands, and the resume point. */
export interface RunState {
  /** The resume point: highest offset applied, 0 when none. */
  readonly offset: number;
  /** From `RUN_STARTED` (or the options); null before. */
  readonly runId: string | null;
  /** From `RUN_STARTED` (or the options); null before. */
  readonly threadId: string | null;
  /** Where the run stands. */
  readonly status: RunStatus;
  /** `RUN_FINISHED`'s outcome (an interrupt, a success); null until then. */
  readonly outcome: RunFinishedOutcome | null;
  /** `RUN_ERROR`'s message and code; null unless the run failed. */
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
  /** The run's steps, in the order they started. */
  readonly steps: readonly StepState[];
  /** The events kept for the application (custom, raw, sub-agents'), in order. */
  readonly events: readonly AppEvent[];
  /** The most recent warnings (at most `MAX_WARNINGS`); `warningCount` counts them all. */
  readonly warnings: readonly FoldWarning[];
  /** Every warning there was, including those no longer in `warnings`. */
  readonly warningCount: number;
  /**
   * The most recent STARTs the fold made up (at most `MAX_SYNTHESIZED`);
   * `synthesizedCount` counts them all. Bounded like `warnings`: a join into a long run can
   * synthesize one per message.
   */
  readonly synthesized: readonly SynthesizedStart[];
  /** Every START made up, including those no longer in `synthesized`. */
  readonly synthesizedCount: number;
  /** Ids of the messages / tool calls that `*_CHUNK` events without an id continue. */
  readonly openChunks: OpenChunks;
}

/** `RunState.warnings` keeps the latest this many. */
export const MAX_WARNINGS = 50;
/** `RunState.synthesized` keeps the latest this many. */
export const MAX_SYNTHESIZED = 50;

/** The folded state of a run as `GET /runs/{id}` serves it (protocol.md). */
export interface RunSnapshot {
  /** The run. */
  runId: string;
  /** Its thread. */
  threadId: string;
  /** Where it stands (never `idle`: a stored run has started). */
  status: Exclude<RunStatus, 'idle'>;
  /** The offset the snapshot is folded to: resume the stream after it. */
  lastOffset: number;
  /** The run's messages at `lastOffset`. */
  messages: RunMessage[];
  /** Application state (`STATE_SNAPSHOT` / `STATE_DELTA`), when the run has any. */
  state?: unknown;
  /** `RUN_FINISHED`'s outcome, once finished. */
  outcome?: RunFinishedOutcome;
  /** Why it failed, when it did. */
  error?: RunError;
  /**
   * The `*_CHUNK` blocks open at `lastOffset`, when any: a chunk without an id after the
   * snapshot continues the block named here, as it would have without the snapshot.
   */
  openChunks?: OpenChunks;
}

/** Where a new state starts: the run it is for and the resume point. */
export interface CreateRunStateOptions {
  /**
   * Start from this resume point instead of 0, to join a run mid-stream without its
   * earlier events (its first events then synthesize the STARTs they lack).
   * @default 0
   */
  from?: number;
  /** The run, when known before its `RUN_STARTED`. */
  runId?: string;
  /** The thread, when known before its `RUN_STARTED`. */
  threadId?: string;
}

/** An empty state to fold a run's events into (`applyEnvelopes`). */
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

/** Whether the run has ended (`finished`, `cancelled` or `error`). */
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
