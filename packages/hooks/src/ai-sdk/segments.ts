import type { RunMessage } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { DynamicToolUIPart, UIMessage } from 'ai';

/**
 * A run's reply as the AI SDK shows it: one assistant `UIMessage` whose parts are the
 * run's reasoning, text and tool calls in the order the fold first saw them. A segment is
 * one such part in a form that can be compared (is the next state an extension of the last
 * one?) and turned into `UIMessageChunk`s (chunks.ts) or straight into parts (below).
 */
export type Segment =
  | { kind: 'text' | 'reasoning'; id: string; text: string; open: boolean }
  | {
      kind: 'tool';
      id: string;
      name: string;
      /** The raw JSON arguments so far. */
      args: string;
      /** The arguments still stream. */
      open: boolean;
      /** The tool message's content, once it came. */
      result?: { content: string; error?: string };
    };

type ToolSegment = Extract<Segment, { kind: 'tool' }>;

/**
 * The run's messages (the prompt excluded: `role: 'user'` never belongs to a reply) as
 * segments. A text or reasoning message with no text yet has no segment: the AI SDK shows
 * no empty part, and the first delta opens it.
 *
 * Within one assistant message: its text, then its tool calls. AG-UI keeps no order
 * between the two; this is the order models write them in. A live stream whose tool call
 * came first reorders once, with a `reset-step` when the text starts (chunks.ts), so every
 * viewer ends with the same parts.
 */
export function segmentsOf(messages: readonly RunMessage[]): Segment[] {
  const segments: Segment[] = [];
  const tools = new Map<string, ToolSegment>();
  for (const m of messages) {
    if (m.role === 'assistant' || m.role === 'reasoning') {
      const text = messageText(m);
      if (text !== '') {
        segments.push({
          kind: m.role === 'assistant' ? 'text' : 'reasoning',
          id: m.id,
          text,
          open: m.streaming === true,
        });
      }
      for (const call of m.toolCalls ?? []) {
        const tool: ToolSegment = {
          kind: 'tool',
          id: call.id,
          name: call.function.name,
          args: call.function.arguments,
          open: call.streaming === true,
        };
        tools.set(call.id, tool);
        segments.push(tool);
      }
    } else if (m.role === 'tool') {
      const tool = tools.get(m.toolCallId);
      if (tool) {
        tool.result = {
          content: messageText(m),
          ...(typeof m.error === 'string' ? { error: m.error } : {}),
        };
      }
    }
  }
  return segments;
}

/** A tool's arguments as the AI SDK's `input`: parsed JSON (`{}` for none), or an error. */
export function toolInput(args: string): { input: unknown } | { error: string } {
  if (args.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(args) };
  } catch {
    return { error: `tool arguments are not JSON: ${args.slice(0, 200)}` };
  }
}

/** A tool message's content as the AI SDK's `output`: parsed JSON when it is JSON. */
export function toolOutput(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

type Part = UIMessage['parts'][number];

/**
 * The parts `useChat` ends with after reading `chunksFor(segments)` from scratch (a test
 * holds the two to each other): for showing a stored conversation without a stream.
 */
export function partsOf(segments: readonly Segment[]): UIMessage['parts'] {
  return segments.map((s): Part => {
    if (s.kind === 'tool') return toolPart(s);
    const state = s.open ? 'streaming' : 'done';
    if (s.kind === 'text') return { type: 'text', text: s.text, state };
    return { type: 'reasoning', id: s.id, text: s.text, state } as Part;
  });
}

function toolPart(s: ToolSegment): DynamicToolUIPart {
  const base = { type: 'dynamic-tool' as const, toolName: s.name, toolCallId: s.id };
  if (s.open) return { ...base, state: 'input-streaming', rawInput: s.args, input: undefined };
  const parsed = toolInput(s.args);
  if ('error' in parsed)
    return { ...base, state: 'output-error', input: s.args, errorText: parsed.error };
  if (s.result === undefined) return { ...base, state: 'input-available', input: parsed.input };
  if (s.result.error !== undefined)
    return { ...base, state: 'output-error', input: parsed.input, errorText: s.result.error };
  return {
    ...base,
    state: 'output-available',
    input: parsed.input,
    output: toolOutput(s.result.content),
  };
}
