import type { AGUIEvent, Interrupt, ResumeEntry, RunAgentInput } from '@resumable/protocol';
import type { ModelMessage, ToolContent } from 'ai';
import {
  type ClientToolAnswer,
  clientToolAnswers,
  clientToolInterrupt,
  clientToolResult,
  interruptIdOf,
} from '../agents/tool-interrupts.js';

/**
 * Human in the loop for AI SDK models. A tool call the SDK holds for approval (a tool with
 * `needsApproval`: a `tool-approval-request` part) ends the run with a `tool_approval`
 * interrupt; a call of a tool without `execute` (one the client declared in `tools`) with
 * a `client_tool` interrupt. The continuation's `resume` goes back into the prompt the
 * SDK's own way: the approval as a `tool-approval-response` (the SDK then runs or denies
 * the tool), the browser's result as a `tool-result`.
 */

/** The interrupts a finished stream leaves: approvals asked, then client tool calls. */
export function streamInterrupts(
  approvals: ReadonlyMap<string, string>,
  pending: ReadonlyMap<string, string>,
): Interrupt[] {
  const asked = [...approvals].map(
    ([toolCallId, toolName]): Interrupt => ({
      id: interruptIdOf('approval', toolCallId),
      reason: 'tool_approval',
      toolCallId,
      message: `Run ${toolName}?`,
    }),
  );
  const client = [...pending]
    .filter(([toolCallId]) => !approvals.has(toolCallId))
    .map(([toolCallId, toolName]) => clientToolInterrupt(toolCallId, toolName));
  return [...asked, ...client];
}

/**
 * The prompt with the run's `resume` answered in it, and the `TOOL_CALL_RESULT` events the
 * run starts with (a browser's result is not streamed by the SDK). Each answer goes right
 * after the assistant message holding its tool call.
 */
export function withResume(
  messages: readonly ModelMessage[],
  input: RunAgentInput,
): { messages: ModelMessage[]; events: AGUIEvent[] } {
  const approvals = new Map((input.resume ?? []).map((e) => [e.interruptId, e]));
  if (approvals.size === 0) return { messages: [...messages], events: [] };
  const out: ModelMessage[] = [];
  const events: AGUIEvent[] = [];
  for (const original of messages) {
    if (original.role !== 'assistant' || typeof original.content === 'string') {
      out.push(original);
      continue;
    }
    const message = { ...original, content: [...original.content] };
    out.push(message);
    const calls = original.content.filter((part) => part.type === 'tool-call');
    const browser = clientToolAnswers(
      input,
      calls.map((call) => call.toolCallId),
    );
    const answers: ToolContent = [];
    for (const call of calls) {
      const answer = browser.get(call.toolCallId);
      if (answer) {
        answers.push(toolResultPart(call.toolCallId, call.toolName, answer));
        events.push(clientToolResult(call.toolCallId, answer));
        continue;
      }
      const approvalId = interruptIdOf('approval', call.toolCallId);
      const entry = approvals.get(approvalId);
      if (!entry) continue;
      // The SDK runs (or denies) an approved call itself when the prompt carries both parts.
      message.content.push({
        type: 'tool-approval-request',
        approvalId,
        toolCallId: call.toolCallId,
      });
      answers.push(approvalResponse(approvalId, entry));
    }
    if (answers.length > 0) out.push({ role: 'tool', content: answers });
  }
  return { messages: out, events };
}

function approvalResponse(approvalId: string, entry: ResumeEntry): ToolContent[number] {
  const payload = (entry.payload ?? {}) as Record<string, unknown>;
  const reason =
    entry.status === 'cancelled'
      ? 'cancelled'
      : typeof payload.reason === 'string'
        ? payload.reason
        : undefined;
  return {
    type: 'tool-approval-response',
    approvalId,
    approved: entry.status === 'resolved' && payload.approved === true,
    ...(reason === undefined ? {} : { reason }),
  };
}

function toolResultPart(
  toolCallId: string,
  toolName: string,
  answer: ClientToolAnswer,
): ToolContent[number] {
  return {
    type: 'tool-result',
    toolCallId,
    toolName,
    output:
      'result' in answer
        ? { type: 'json', value: answer.result as never }
        : { type: 'error-text', value: answer.error },
  };
}
