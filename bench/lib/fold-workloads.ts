/**
 * The fold bench's conversation (fold.bench.ts): 200 prior messages, and each run described
 * once as steps, rendered as AG-UI events and as AI SDK UI message chunks.
 */
import type { AGUIEvent, Message } from '@resumable/protocol';
import type { UIMessage, UIMessageChunk } from 'ai';
import { sentence, token } from './tokens.js';

export const PRIOR = 200;
export const REPLY_DELTAS = 5_000;
/** The long reply of the per-event comparison with the pre-hardening fold. */
export const LONG_REPLY_DELTAS = 20_000;

/** 200 prior messages, alternating user / assistant, a few hundred characters each. */
export const prior: Message[] = Array.from({ length: PRIOR }, (_, i) =>
  i % 2 === 0
    ? { id: `h${i}`, role: 'user', content: sentence(i, 12) }
    : { id: `h${i}`, role: 'assistant', content: sentence(i, 60) },
);

/** One logical run, described once and rendered for each system below. */
export type Step =
  | { kind: 'text'; id: string; deltas: string[] }
  | { kind: 'reasoning'; id: string; deltas: string[] }
  | { kind: 'tool'; id: string; name: string; parent: string; args: string[]; result: string };

/** One reply of `deltas` text deltas. */
export const reply = (deltas: number): Step[] => [
  { kind: 'text', id: 'reply', deltas: Array.from({ length: deltas }, (_, i) => token(i)) },
];
export const replyRun: Step[] = reply(REPLY_DELTAS);

export function toolArgs(n: number): string[] {
  // A JSON object streamed in ~4-character pieces.
  const json = JSON.stringify({ query: sentence(n, 40), limit: 10, filters: { lang: 'en' } });
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += 4) pieces.push(json.slice(i, i + 4));
  return pieces;
}
const toolStep = (n: number, parent: string): Step => ({
  kind: 'tool',
  id: `tc${n}`,
  name: n % 2 ? 'search' : 'weather',
  parent,
  args: toolArgs(n),
  result: JSON.stringify({ hits: n, text: sentence(n, 20) }),
});

export const toolRun: Step[] = [
  { kind: 'text', id: 'a1', deltas: Array.from({ length: 300 }, (_, i) => token(i)) },
  ...[0, 1, 2, 3].map((n) => toolStep(n, 'a1')),
  { kind: 'text', id: 'a2', deltas: Array.from({ length: 1_000 }, (_, i) => token(i + 7)) },
];

/**
 * An agent's turn as models stream it: reasoning, text, tool calls with streamed arguments
 * and their results, more reasoning, text, another call, a closing text (11 messages).
 */
export const mixedRun: Step[] = [
  { kind: 'reasoning', id: 'r1', deltas: Array.from({ length: 400 }, (_, i) => token(i + 3)) },
  { kind: 'text', id: 'm1', deltas: Array.from({ length: 300 }, (_, i) => token(i)) },
  ...[0, 1, 2].map((n) => toolStep(n, 'm1')),
  { kind: 'reasoning', id: 'r2', deltas: Array.from({ length: 200 }, (_, i) => token(i + 5)) },
  { kind: 'text', id: 'm2', deltas: Array.from({ length: 1_000 }, (_, i) => token(i + 7)) },
  toolStep(3, 'm2'),
  { kind: 'text', id: 'm3', deltas: Array.from({ length: 500 }, (_, i) => token(i + 11)) },
];

export function aguiEvents(steps: Step[]): AGUIEvent[] {
  const events: object[] = [{ type: 'RUN_STARTED', threadId: 'th', runId: 'run' }];
  for (const step of steps) {
    if (step.kind === 'text') {
      events.push({ type: 'TEXT_MESSAGE_START', messageId: step.id, role: 'assistant' });
      for (const delta of step.deltas) {
        events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: step.id, delta });
      }
      events.push({ type: 'TEXT_MESSAGE_END', messageId: step.id });
    } else if (step.kind === 'reasoning') {
      events.push({ type: 'REASONING_START', messageId: step.id });
      events.push({ type: 'REASONING_MESSAGE_START', messageId: step.id, role: 'reasoning' });
      for (const delta of step.deltas) {
        events.push({ type: 'REASONING_MESSAGE_CONTENT', messageId: step.id, delta });
      }
      events.push({ type: 'REASONING_MESSAGE_END', messageId: step.id });
      events.push({ type: 'REASONING_END', messageId: step.id });
    } else {
      events.push({
        type: 'TOOL_CALL_START',
        toolCallId: step.id,
        toolCallName: step.name,
        parentMessageId: step.parent,
      });
      for (const delta of step.args) {
        events.push({ type: 'TOOL_CALL_ARGS', toolCallId: step.id, delta });
      }
      events.push({ type: 'TOOL_CALL_END', toolCallId: step.id });
      events.push({
        type: 'TOOL_CALL_RESULT',
        messageId: `res-${step.id}`,
        toolCallId: step.id,
        content: step.result,
      });
    }
  }
  events.push({ type: 'RUN_FINISHED', threadId: 'th', runId: 'run', outcome: { type: 'success' } });
  return events as AGUIEvent[];
}

export function aiSdkChunks(steps: Step[]): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [{ type: 'start', messageId: 'reply' }, { type: 'start-step' }];
  for (const step of steps) {
    if (step.kind === 'text') {
      chunks.push({ type: 'text-start', id: step.id });
      for (const delta of step.deltas) chunks.push({ type: 'text-delta', id: step.id, delta });
      chunks.push({ type: 'text-end', id: step.id });
    } else if (step.kind === 'reasoning') {
      chunks.push({ type: 'reasoning-start', id: step.id });
      for (const delta of step.deltas) chunks.push({ type: 'reasoning-delta', id: step.id, delta });
      chunks.push({ type: 'reasoning-end', id: step.id });
    } else {
      chunks.push({ type: 'tool-input-start', toolCallId: step.id, toolName: step.name });
      for (const delta of step.args) {
        chunks.push({ type: 'tool-input-delta', toolCallId: step.id, inputTextDelta: delta });
      }
      chunks.push({
        type: 'tool-input-available',
        toolCallId: step.id,
        toolName: step.name,
        input: JSON.parse(step.args.join('')),
      });
      chunks.push({ type: 'tool-output-available', toolCallId: step.id, output: step.result });
    }
  }
  chunks.push({ type: 'finish-step' }, { type: 'finish' });
  return chunks;
}

export const priorUI: UIMessage[] = prior.map((m) => ({
  id: m.id,
  role: m.role as 'user' | 'assistant',
  parts: [{ type: 'text', text: m.content as string }],
}));
