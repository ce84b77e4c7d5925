import type { RunMessage, RunToolCall } from './state.js';

/**
 * Shallow copies of the objects a streamed event writes: a message, a tool call, a tool
 * call's `function`. Each is `{ ...value }`, spelled out as a literal for the shapes the
 * fold itself makes, and the generic spread for anything else.
 *
 * Why: every event of a stream copies the message it extends, and V8's object spread at
 * that one site sees many shapes (every message a page has folded), goes megamorphic and
 * copies key by key through its generic path (~1,000 instructions an event, callgrind; a
 * literal is ~300 less than that, and its result always has one hidden class).
 *
 * A literal is taken only when the value's enumerable string keys are exactly the shape's,
 * in the same order, and all its own (`for…in` lists them; `hasOwnProperty` in that loop
 * costs nothing once optimized), so it makes what the spread makes from any data: the same
 * own keys in the same order with the same values. Symbol-keyed properties are not kept by
 * the literal: the fold keeps a message's own string-keyed properties, which is all JSON
 * and structured clone carry (the package README).
 */

/** A streaming text or reasoning message, as `TEXT_MESSAGE_START` makes it. */
const STREAMING_MESSAGE = ['id', 'role', 'content', 'streaming'] as const;
/** An assistant message whose tool calls stream (they were added to its text). */
const TOOL_CALLS_MESSAGE = ['id', 'role', 'content', 'toolCalls'] as const;
/** A tool call whose arguments stream, as `TOOL_CALL_START` makes it. */
const STREAMING_CALL = ['id', 'type', 'function', 'streaming'] as const;
/** A tool call's `function`. */
const CALL_FUNCTION = ['name', 'arguments'] as const;

/** Whether `value`'s for…in keys are `keys`, in that order, each its own. */
function ownKeysAre(value: object, keys: readonly string[]): boolean {
  let n = 0;
  for (const key in value) {
    // Not Object.hasOwn: Node 20's V8 optimizes only this spelling inside for…in (callgrind: ~480
    // instructions an event more with Object.hasOwn).
    // biome-ignore lint/suspicious/noPrototypeBuiltins: the form V8 optimizes in for…in
    if (!Object.prototype.hasOwnProperty.call(value, key) || key !== keys[n]) return false;
    n++;
  }
  return n === keys.length;
}

/** `{ ...message }`. */
export function copyMessage(message: RunMessage): RunMessage {
  const m = message as RunMessage & { content?: unknown };
  if (ownKeysAre(m, STREAMING_MESSAGE)) {
    return { id: m.id, role: m.role, content: m.content, streaming: m.streaming } as RunMessage;
  }
  if (ownKeysAre(m, TOOL_CALLS_MESSAGE)) {
    return { id: m.id, role: m.role, content: m.content, toolCalls: m.toolCalls } as RunMessage;
  }
  return { ...message };
}

/** `{ ...call }`. */
export function copyToolCall(call: RunToolCall): RunToolCall {
  if (ownKeysAre(call, STREAMING_CALL)) {
    return { id: call.id, type: call.type, function: call.function, streaming: call.streaming };
  }
  return { ...call };
}

/** `{ ...fn, arguments }`. */
export function withArguments(fn: RunToolCall['function'], args: string): RunToolCall['function'] {
  if (ownKeysAre(fn, CALL_FUNCTION)) return { name: fn.name, arguments: args };
  return { ...fn, arguments: args };
}
