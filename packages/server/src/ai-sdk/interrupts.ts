import type { AGUIEvent, Interrupt, ResumeEntry, RunAgentInput } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import type { ModelMessage, ToolContent } from 'ai';

/**
 * Human in the loop for AI SDK models. A tool call the SDK holds for approval (a tool with
 * `needsApproval`: a `tool-approval-request` part) ends the run with a `tool_approval`
 * interrupt; a call of a tool without `execute` (one the client declared in `tools`) with
 * a `client_tool` interrupt. The continuation's `resume` goes back into the prompt the
 * SDK's own way: the approval as a `tool-approval-response` (the SDK then runs or denies
 * the tool), the browser's result as a `tool-result`.
 */

/** Interrupt ids are the tool call's, in the protocol's id alphabet. */
export function interruptIdOf(kind: 'approval' | 'tool', toolCallId: string): string {
  return `${kind}-${toolCallId.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 180)}`;
}

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
    .map(
      ([toolCallId, toolName]): Interrupt => ({
        id: interruptIdOf('tool', toolCallId),
        reason: 'client_tool',
        toolCallId,
        message: `Run ${toolName} in the page`,
      }),
    );
  return [...asked, ...client];
}

type Answer = { kind: 'approval' | 'tool'; entry: ResumeEntry };

/**
 * The prompt with the run's `resume` answered in it, and the `TOOL_CALL_RESULT` events the
 * run starts with (a browser's result is not streamed by the SDK). Each answer goes right
 * after the assistant message holding its tool call.
 */
export function withResume(
  messages: readonly ModelMessage[],
  input: RunAgentInput,
): { messages: ModelMessage[]; events: AGUIEvent[] } {
  const byId = new Map((input.resume ?? []).map((e) => [e.interruptId, e]));
  if (byId.size === 0) return { messages: [...messages], events: [] };
  const out: ModelMessage[] = [];
  const events: AGUIEvent[] = [];
  for (const original of messages) {
    if (original.role !== 'assistant' || typeof original.content === 'string') {
      out.push(original);
      continue;
    }
    const message = { ...original, content: [...original.content] };
    out.push(message);
    const answers: ToolContent = [];
    for (const part of original.content) {
      if (part.type !== 'tool-call') continue;
      const answer = answerFor(byId, part.toolCallId);
      if (!answer) continue;
      const { entry } = answer;
      const payload = (entry.payload ?? {}) as Record<string, unknown>;
      if (answer.kind === 'approval') {
        const approvalId = entry.interruptId;
        message.content.push({
          type: 'tool-approval-request',
          approvalId,
          toolCallId: part.toolCallId,
        });
        const approved = entry.status === 'resolved' && payload.approved === true;
        const reason =
          entry.status === 'cancelled'
            ? 'cancelled'
            : typeof payload.reason === 'string'
              ? payload.reason
              : undefined;
        answers.push({
          type: 'tool-approval-response',
          approvalId,
          approved,
          ...(reason === undefined ? {} : { reason }),
        });
        continue;
      }
      const failed =
        entry.status === 'cancelled'
          ? 'cancelled'
          : 'result' in payload
            ? null
            : String(payload.error ?? 'no result');
      answers.push({
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output:
          failed === null
            ? { type: 'json', value: (payload.result ?? null) as never }
            : { type: 'error-text', value: failed },
      });
      events.push({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `result-${part.toolCallId}`,
        toolCallId: part.toolCallId,
        role: 'tool',
        content: JSON.stringify(failed === null ? (payload.result ?? null) : { error: failed }),
      });
    }
    if (answers.length > 0) out.push({ role: 'tool', content: answers });
  }
  return { messages: out, events };
}

function answerFor(byId: ReadonlyMap<string, ResumeEntry>, toolCallId: string): Answer | null {
  for (const kind of ['approval', 'tool'] as const) {
    const entry = byId.get(interruptIdOf(kind, toolCallId));
    if (entry) return { kind, entry };
  }
  return null;
}
