import type { UIMessageChunk } from 'ai';
import type { Segment } from './segments.js';
import { toolInput, toolOutput } from './segments.js';

/**
 * The chunks that take a `useChat` message showing `prev` to showing `next`.
 *
 * When `next` extends `prev` (texts and arguments only grow, parts only close, results
 * only arrive, new parts only at the end) the chunks carry just the difference: on a
 * resume that is the folded text so far in one delta per part, then the live deltas. When
 * it does not (the session replaced its state with a server snapshot that differs), a
 * `reset-step` clears the message and the whole of `next` follows: the message is never
 * left with a part twice.
 */
export function chunksBetween(
  prev: readonly Segment[],
  next: readonly Segment[],
): UIMessageChunk[] {
  const out: UIMessageChunk[] = [];
  if (!extends_(prev, next)) {
    out.push({ type: 'reset-step' });
    prev = [];
  }
  for (let i = 0; i < next.length; i++) {
    const before = prev[i];
    const after = next[i]!;
    if (before === undefined) emitWhole(after, out);
    else emitChange(before, after, out);
  }
  return out;
}

/** The chunks that build `segments` from an empty message. */
export function chunksFor(segments: readonly Segment[]): UIMessageChunk[] {
  return chunksBetween([], segments);
}

function extends_(prev: readonly Segment[], next: readonly Segment[]): boolean {
  if (next.length < prev.length) return false;
  return prev.every((p, i) => {
    const n = next[i]!;
    if (n.kind !== p.kind || n.id !== p.id) return false;
    if (n.open && !p.open) return false;
    if (p.kind === 'tool' && n.kind === 'tool') {
      if (n.name !== p.name || !n.args.startsWith(p.args)) return false;
      if (!p.open && n.args !== p.args) return false;
      if (p.result !== undefined && (n.result === undefined || !sameResult(p.result, n.result)))
        return false;
      return true;
    }
    return p.kind !== 'tool' && n.kind !== 'tool' && n.text.startsWith(p.text);
  });
}

function sameResult(
  a: { content: string; error?: string },
  b: { content: string; error?: string },
) {
  return a.content === b.content && a.error === b.error;
}

function emitWhole(s: Segment, out: UIMessageChunk[]): void {
  if (s.kind === 'tool') {
    out.push({ type: 'tool-input-start', toolCallId: s.id, toolName: s.name, dynamic: true });
    emitToolChange({ ...s, args: '', open: true, result: undefined }, s, out);
    return;
  }
  out.push({ type: s.kind === 'text' ? 'text-start' : 'reasoning-start', id: s.id });
  emitChange({ ...s, text: '', open: true }, s, out);
}

function emitChange(before: Segment, after: Segment, out: UIMessageChunk[]): void {
  if (before.kind === 'tool' || after.kind === 'tool') {
    if (before.kind === 'tool' && after.kind === 'tool') emitToolChange(before, after, out);
    return;
  }
  const delta = after.text.slice(before.text.length);
  const text = after.kind === 'text';
  if (delta !== '')
    out.push({ type: text ? 'text-delta' : 'reasoning-delta', id: after.id, delta });
  if (before.open && !after.open)
    out.push({ type: text ? 'text-end' : 'reasoning-end', id: after.id });
}

type Tool = Extract<Segment, { kind: 'tool' }>;

function emitToolChange(before: Tool, after: Tool, out: UIMessageChunk[]): void {
  const ids = { toolCallId: after.id };
  if (after.open) {
    const delta = after.args.slice(before.args.length);
    if (delta !== '') out.push({ type: 'tool-input-delta', ...ids, inputTextDelta: delta });
    return;
  }
  const parsed = toolInput(after.args);
  // Unparseable arguments end the part as an error (as partsOf shows it); a result after
  // them has no part state to go to.
  if ('error' in parsed) {
    if (before.open)
      out.push({
        type: 'tool-input-error',
        ...ids,
        toolName: after.name,
        input: after.args,
        errorText: parsed.error,
        dynamic: true,
      });
    return;
  }
  if (before.open) {
    out.push({
      type: 'tool-input-available',
      ...ids,
      toolName: after.name,
      input: parsed.input,
      dynamic: true,
    });
  }
  if (before.result === undefined && after.result !== undefined) {
    out.push(
      after.result.error !== undefined
        ? { type: 'tool-output-error', ...ids, errorText: after.result.error, dynamic: true }
        : {
            type: 'tool-output-available',
            ...ids,
            output: toolOutput(after.result.content),
            dynamic: true,
          },
    );
  }
}
