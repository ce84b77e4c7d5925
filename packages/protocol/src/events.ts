import type { Event as AGUIEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { ResumableError } from './errors.js';
import { isOffset } from './offsets.js';
import { isPlainObject } from './validate.js';

export type {
  ActivityMessage,
  AssistantMessage,
  ContentPart,
  Context,
  DeveloperMessage,
  Interrupt,
  JsonPatchOperation,
  Message,
  ReasoningMessage,
  ResumeEntry,
  RunAgentInput,
  RunErrorEvent,
  RunFinishedEvent,
  RunFinishedOutcome,
  RunStartedEvent,
  SystemMessage,
  Tool,
  ToolCall,
  ToolMessage,
  UserMessage,
} from '@ag-ui/core';
export type { AGUIEvent };
// The AG-UI 1.0 vocabulary comes from @ag-ui/core; this package only adds offsets.
export { EventType };

/** One stored event of a run and its place in the run's log (the SSE `id:`). */
export interface Envelope<E extends AGUIEvent = AGUIEvent> {
  /** Its place in the run's log: 1, 2, 3… with no gaps. */
  offset: number;
  /** The AG-UI event. */
  event: E;
}

/** The events that end a run: `RUN_FINISHED` and `RUN_ERROR`. */
export type TerminalEvent = Extract<
  AGUIEvent,
  { type: EventType.RUN_FINISHED | EventType.RUN_ERROR }
>;

/** Whether the event ends its run. */
export function isTerminalEvent(event: { type: string }): event is TerminalEvent {
  return event.type === EventType.RUN_FINISHED || event.type === EventType.RUN_ERROR;
}

type FieldKind = 'string' | 'array' | 'object' | 'present' | 'content';

/**
 * What each event type must carry to be usable. Deliberately a table of a few `typeof`
 * checks rather than a schema library: this runs on every event the client receives, and
 * validating the optional fields (or re-parsing nested messages) would cost more than the
 * fold itself.
 */
const REQUIRED: Readonly<Record<EventType, Readonly<Record<string, FieldKind>>>> = {
  TEXT_MESSAGE_START: { messageId: 'string' },
  TEXT_MESSAGE_CONTENT: { messageId: 'string', delta: 'string' },
  TEXT_MESSAGE_END: { messageId: 'string' },
  TEXT_MESSAGE_CHUNK: {},
  TOOL_CALL_START: { toolCallId: 'string', toolCallName: 'string' },
  TOOL_CALL_ARGS: { toolCallId: 'string', delta: 'string' },
  TOOL_CALL_END: { toolCallId: 'string' },
  TOOL_CALL_CHUNK: {},
  TOOL_CALL_RESULT: { messageId: 'string', toolCallId: 'string', content: 'content' },
  STATE_SNAPSHOT: { snapshot: 'present' },
  STATE_DELTA: { delta: 'array' },
  MESSAGES_SNAPSHOT: { messages: 'array' },
  ACTIVITY_SNAPSHOT: { messageId: 'string', activityType: 'string', content: 'object' },
  ACTIVITY_DELTA: { messageId: 'string', activityType: 'string', patch: 'array' },
  RAW: { event: 'present' },
  CUSTOM: { name: 'string' },
  RUN_STARTED: { threadId: 'string', runId: 'string' },
  RUN_FINISHED: { threadId: 'string', runId: 'string' },
  RUN_ERROR: { message: 'string' },
  STEP_STARTED: { stepName: 'string' },
  STEP_FINISHED: { stepName: 'string' },
  REASONING_START: { messageId: 'string' },
  REASONING_MESSAGE_START: { messageId: 'string' },
  REASONING_MESSAGE_CONTENT: { messageId: 'string', delta: 'string' },
  REASONING_MESSAGE_END: { messageId: 'string' },
  REASONING_MESSAGE_CHUNK: {},
  REASONING_END: { messageId: 'string' },
  REASONING_ENCRYPTED_VALUE: { subtype: 'string', entityId: 'string', encryptedValue: 'string' },
  SUBAGENT_STARTED: { subagentRunId: 'string', name: 'string' },
  SUBAGENT_FINISHED: { subagentRunId: 'string' },
  SUBAGENT_ERROR: { subagentRunId: 'string', message: 'string' },
};

function fieldOk(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    case 'present':
      return value !== undefined;
    case 'content':
      return typeof value === 'string' || Array.isArray(value);
  }
}

/** REQUIRED as lists, in a Map: no prototype keys, and an indexed loop on the hot path. */
const REQUIRED_FIELDS: ReadonlyMap<string, readonly (readonly [string, FieldKind])[]> = new Map(
  Object.entries(REQUIRED).map(([type, fields]) => [type, Object.entries(fields)]),
);

/** Whether `type` is an AG-UI event type this protocol folds. */
export function isKnownEventType(type: unknown): type is EventType {
  return typeof type === 'string' && REQUIRED_FIELDS.has(type);
}

/**
 * Checks that an untrusted value is an AG-UI event this kit can fold. Returns the event, or
 * a `malformed_event` / `unknown_event` error as a value (never throws), so a stream reader
 * can report it and keep going.
 */
export function checkEvent(value: unknown): AGUIEvent | ResumableError {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return new ResumableError('malformed_event', 'an event must be a JSON object');
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return new ResumableError('malformed_event', 'an event must have a string "type"');
  }
  if (isWellFormedDelta(value, type)) return value as AGUIEvent;
  const required = REQUIRED_FIELDS.get(type);
  if (required === undefined) {
    return new ResumableError('unknown_event', `unknown event type "${type}"`);
  }
  for (let i = 0; i < required.length; i++) {
    const [field, kind] = required[i]!;
    const fieldValue = (value as Record<string, unknown>)[field];
    if (!fieldOk(fieldValue, kind)) {
      return new ResumableError(
        'malformed_event',
        `${type} needs "${field}" (${kind}), got ${JSON.stringify(fieldValue) ?? 'nothing'}`,
      );
    }
  }
  return value as AGUIEvent;
}

/**
 * Whether a CONTENT or ARGS event carries what REQUIRED asks of it (the same fields; a
 * wire.test.ts table holds the two together). These are almost every event of a stream,
 * and the table's Map lookup and keyed reads (megamorphic: one read site for every type's
 * fields) cost more than the rest of folding a delta (callgrind: ~470 instructions an
 * event); here each read site sees one type. False sends the event on to the table, which
 * names what is wrong.
 */
function isWellFormedDelta(value: object, type: string): boolean {
  const event = value as { messageId?: unknown; toolCallId?: unknown; delta?: unknown };
  if (type === EventType.TEXT_MESSAGE_CONTENT || type === EventType.REASONING_MESSAGE_CONTENT) {
    return typeof event.messageId === 'string' && typeof event.delta === 'string';
  }
  if (type === EventType.TOOL_CALL_ARGS) {
    return typeof event.toolCallId === 'string' && typeof event.delta === 'string';
  }
  return false;
}

const OFFSET_TEXT = /^[1-9][0-9]{0,15}$/;

/**
 * Turns an SSE frame's `id:` and `data:` into an envelope. Only a missing or invalid offset
 * is an error (returned as a value): with a valid offset the envelope is returned even when
 * its data is not a usable event, because the event still occupies that place in the log —
 * the fold records it as a warning and moves the resume point past it, instead of the
 * client re-fetching the same bad event forever.
 */
export function decodeEnvelope(
  id: string | number | undefined,
  data: string | unknown,
): Envelope | ResumableError {
  const offset =
    typeof id === 'number'
      ? id
      : typeof id === 'string' && OFFSET_TEXT.test(id.trim())
        ? Number(id.trim())
        : Number.NaN;
  if (!isOffset(offset)) {
    return new ResumableError(
      'malformed_event',
      `an event needs a positive integer offset, got "${String(id)}"`,
    );
  }
  let value: unknown = data;
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data);
    } catch {
      value = { type: undefined, unparsed: data.slice(0, 200) };
    }
  }
  return { offset, event: value as AGUIEvent };
}
