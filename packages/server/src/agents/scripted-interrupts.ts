import type { AGUIEvent, Interrupt, ResumeEntry, RunAgentInput } from '@resumable/protocol';
import { EventType, ResumableError } from '@resumable/protocol';

/**
 * The scripted agent's human-in-the-loop turns (`forwardedProps.script.interrupt`): a run
 * that asks — a server tool waiting for approval, a question, a browser-side tool — and
 * ends `RUN_FINISHED outcome:{type:"interrupt"}`; and the continuation that reads the
 * answers from `input.resume`. Interrupt ids carry their kind and the asking run
 * (`approval-<runId>`), so a continuation needs nothing but its input.
 */

/** What a scripted run asks for. */
export type ScriptedInterrupt = 'tool_approval' | 'question' | 'client_tool';
export const SCRIPTED_INTERRUPTS: readonly ScriptedInterrupt[] = [
  'tool_approval',
  'question',
  'client_tool',
];

/** The file the approval is about: what the demo's "delete" prompt would delete. */
export const APPROVAL_PATH = 'notes/old-draft.md';
export const QUESTION = 'What should I call the report?';

const PREFIX: Record<ScriptedInterrupt, string> = {
  tool_approval: 'approval-',
  question: 'question-',
  client_tool: 'tool-',
};

/** Ids stay within the 200 characters of an interrupt id, whatever the run id's length. */
const tail = (runId: string) => runId.slice(0, 180);
const callIdOf = (part: string) => `call-${part}`;

/** A `client_tool` run needs a tool the client declared: a 400 at POST otherwise. */
export function checkInterruptScript(kind: ScriptedInterrupt, input: RunAgentInput): void {
  if (kind === 'client_tool' && (input.tools ?? []).length === 0) {
    throw new ResumableError(
      'bad_request',
      'script.interrupt "client_tool" needs a tool the client declared in tools',
    );
  }
}

function* say(messageId: string, text: string): Generator<AGUIEvent> {
  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
  for (const delta of text.match(/\S+\s*|\s+/g) ?? []) {
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
  }
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
}

function* callTool(runId: string, toolCallId: string, name: string, args: string) {
  yield {
    type: EventType.TOOL_CALL_START,
    toolCallId,
    toolCallName: name,
    parentMessageId: `msg-tools-${runId}`,
  } satisfies AGUIEvent;
  yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args } satisfies AGUIEvent;
  yield { type: EventType.TOOL_CALL_END, toolCallId } satisfies AGUIEvent;
}

/** The asking run: its events, ending `RUN_FINISHED` with the interrupt. */
export function* askFor(kind: ScriptedInterrupt, input: RunAgentInput): Generator<AGUIEvent> {
  const { runId, threadId } = input;
  const part = tail(runId);
  const id = `${PREFIX[kind]}${part}`;
  const toolCallId = callIdOf(part);
  let interrupt: Interrupt;
  if (kind === 'tool_approval') {
    yield* say(`msg-${runId}`, `I can delete ${APPROVAL_PATH} for you. It needs your approval.`);
    yield* callTool(runId, toolCallId, 'delete_file', JSON.stringify({ path: APPROVAL_PATH }));
    interrupt = { id, reason: 'tool_approval', toolCallId, message: `Delete ${APPROVAL_PATH}?` };
  } else if (kind === 'question') {
    yield* say(`msg-${runId}`, `Before I write the report: ${QUESTION}`);
    interrupt = {
      id,
      reason: 'question',
      message: QUESTION,
      responseSchema: { type: 'string', maxLength: 200 },
    };
  } else {
    const tool = input.tools[0]!;
    yield* callTool(runId, toolCallId, tool.name, '{}');
    interrupt = { id, reason: 'client_tool', toolCallId, message: `Run ${tool.name} in the page` };
  }
  yield {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    outcome: { type: 'interrupt', interrupts: [interrupt] },
  };
}

/** JSON shown in a reply, bounded (a payload may be 16 KiB). */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'nothing');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The name of the tool a continuation's tool call used, from the thread's history. */
function toolNameOf(input: RunAgentInput, toolCallId: string): string {
  for (const message of input.messages) {
    if (message.role !== 'assistant') continue;
    const call = message.toolCalls?.find((c) => c.id === toolCallId);
    if (call) return call.function.name;
  }
  return 'the tool';
}

function* answerOne(input: RunAgentInput, entry: ResumeEntry, n: number): Generator<AGUIEvent> {
  const { runId } = input;
  const kind = SCRIPTED_INTERRUPTS.find((k) => entry.interruptId.startsWith(PREFIX[k]));
  const part = kind ? entry.interruptId.slice(PREFIX[kind].length) : '';
  const toolCallId = callIdOf(part);
  const messageId = `msg-${runId}-${n}`;
  const payload = (entry.payload ?? {}) as Record<string, unknown>;
  const result = (content: unknown) =>
    ({
      type: EventType.TOOL_CALL_RESULT,
      messageId: `tool-${runId}-${n}`,
      toolCallId,
      role: 'tool',
      content: JSON.stringify(content),
    }) satisfies AGUIEvent;
  const cancelled = entry.status === 'cancelled';
  if (kind === 'tool_approval') {
    if (!cancelled && payload.approved === true) {
      yield result({ deleted: APPROVAL_PATH });
      return yield* say(messageId, `Approved: I deleted ${APPROVAL_PATH}.`);
    }
    const why = cancelled
      ? 'the request was cancelled'
      : typeof payload.reason === 'string' && payload.reason !== ''
        ? `you denied it (${shown(payload.reason)})`
        : 'you denied it';
    yield result({ error: cancelled ? 'cancelled' : 'denied' });
    return yield* say(messageId, `I did not delete ${APPROVAL_PATH}: ${why}.`);
  }
  if (kind === 'question') {
    if (cancelled) return yield* say(messageId, 'No name then: the question was cancelled.');
    return yield* say(messageId, `Thanks: I will call the report "${shown(payload.answer)}".`);
  }
  if (kind === 'client_tool') {
    const name = toolNameOf(input, toolCallId);
    if (cancelled) {
      yield result({ error: 'cancelled' });
      return yield* say(messageId, `${name} was cancelled, so I go on without it.`);
    }
    if ('result' in payload) {
      yield result(payload.result);
      return yield* say(messageId, `The page ran ${name} and returned ${shown(payload.result)}.`);
    }
    yield result({ error: shown(payload.error) });
    return yield* say(messageId, `The page could not run ${name}: ${shown(payload.error)}.`);
  }
  yield* say(messageId, `Interrupt ${entry.interruptId} was ${entry.status}.`);
}

/**
 * A continuation: one reply per answer. Returns true when the run should then answer the
 * prompt as usual (the answers were cancellations made by a new prompt).
 */
export function* answerResume(input: RunAgentInput): Generator<AGUIEvent, boolean> {
  const resume = input.resume ?? [];
  for (const [n, entry] of resume.entries()) yield* answerOne(input, entry, n);
  const last = input.messages.at(-1);
  return resume.every((e) => e.status === 'cancelled') && last?.role === 'user';
}
