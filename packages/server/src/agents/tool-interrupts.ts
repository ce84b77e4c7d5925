import type { AGUIEvent, Interrupt, RunAgentInput } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';

/**
 * Interrupts of tool calls, shared by the model agents: ids derive from the tool call's
 * (in the protocol's id alphabet), so a continuation finds its call from `resume` alone.
 */
export function interruptIdOf(kind: 'approval' | 'tool', toolCallId: string): string {
  return `${kind}-${toolCallId.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 180)}`;
}

/** A `client_tool` interrupt: the page runs a tool the client declared. */
export function clientToolInterrupt(toolCallId: string, toolName: string): Interrupt {
  return {
    id: interruptIdOf('tool', toolCallId),
    reason: 'client_tool',
    toolCallId,
    message: `Run ${toolName} in the page`,
  };
}

/** What the browser answered for a tool call: its result, or why there is none. */
export type ClientToolAnswer = { result: unknown } | { error: string };

/** The `client_tool` answers of a continuation, by tool call id (none for other calls). */
export function clientToolAnswers(input: RunAgentInput, toolCallIds: readonly string[]) {
  const byId = new Map((input.resume ?? []).map((e) => [e.interruptId, e]));
  const answers = new Map<string, ClientToolAnswer>();
  for (const toolCallId of toolCallIds) {
    const entry = byId.get(interruptIdOf('tool', toolCallId));
    if (!entry) continue;
    const payload = (entry.payload ?? {}) as Record<string, unknown>;
    answers.set(
      toolCallId,
      entry.status === 'cancelled'
        ? { error: 'cancelled' }
        : 'result' in payload
          ? { result: payload.result ?? null }
          : { error: String(payload.error ?? 'no result') },
    );
  }
  return answers;
}

/** The `TOOL_CALL_RESULT` a continuation starts with for a browser's answer. */
export function clientToolResult(toolCallId: string, answer: ClientToolAnswer): AGUIEvent {
  return {
    type: EventType.TOOL_CALL_RESULT,
    messageId: `result-${toolCallId}`,
    toolCallId,
    role: 'tool',
    content: JSON.stringify('result' in answer ? answer.result : answer),
  };
}
