import { ResumableError } from '@resumable/protocol';
import { MAX_TOOL_CALL_ID_CHARS } from '../defaults.js';
import { quote } from './upstream-fetch.js';

/** One tool call's part of a streamed chunk. */
export interface ToolCallDelta {
  /** Which call it continues: 0 up to `maxToolCalls - 1`. */
  index: number;
  id?: string;
  name?: string;
  args?: string;
}

/** What one Chat Completions chunk says, checked: its first choice's delta. */
export interface ChunkDelta {
  content?: string;
  /**
   * The model's thinking, never empty: `delta.reasoning_content` (DeepSeek, vLLM, Qwen…),
   * else `delta.reasoning` (OpenRouter, vLLM's newer name).
   */
  reasoning?: string;
  toolCalls: ToolCallDelta[];
  /** A `finish_reason` came: the answer is complete. */
  finished: boolean;
}

/** The message of a body in the OpenAI error shape, `{"error":{"message":"…"}}`. */
export function openaiErrorMessage(body: unknown): string | undefined {
  const error = isObject(body) ? body.error : undefined;
  return isObject(error) && typeof error.message === 'string' ? error.message : undefined;
}

/**
 * One `data:` of a Chat Completions stream, checked against the chunk's shape: anything
 * else (null, a number for text, a negative or huge tool call index, an error not in the
 * API's shape) ends the run `upstream_failed` saying what was wrong, instead of being
 * guessed at.
 */
export function parseChunk(
  data: string,
  what: string,
  maxToolCalls: number,
  redact: (text: string) => string = (text) => text,
): ChunkDelta {
  // Only what a failure quotes is redacted: the model's own text is never rewritten.
  const fail = (problem: string) =>
    new ResumableError('upstream_failed', redact(`${what} sent ${problem}`));
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw fail(`data that is not JSON: ${quote(data, 120)}`);
  }
  if (!isObject(chunk)) throw fail(`a chunk that is not a JSON object: ${quote(data, 120)}`);
  if (chunk.error !== undefined && chunk.error !== null) {
    const message = openaiErrorMessage(chunk);
    throw fail(
      message === undefined
        ? `an error not in the API's error shape: ${quote(JSON.stringify(chunk.error), 120)}`
        : `an error: ${quote(message, 500)}`,
    );
  }
  const choices = chunk.choices ?? [];
  if (!Array.isArray(choices)) throw fail('a chunk whose "choices" is not an array');
  const choice: unknown = choices[0] ?? {};
  if (!isObject(choice)) throw fail('a choice that is not an object');
  const delta = choice.delta ?? {};
  if (!isObject(delta)) throw fail('a "delta" that is not an object');
  const finish = choice.finish_reason ?? null;
  if (finish !== null && typeof finish !== 'string') {
    throw fail(`a "finish_reason" that is ${kindOf(finish)}, not text`);
  }
  const text = (field: string): string | undefined => {
    const value = delta[field] ?? undefined;
    if (value !== undefined && typeof value !== 'string') {
      throw fail(`a "delta.${field}" that is ${kindOf(value)}, not text`);
    }
    return value;
  };
  const content = text('content');
  // Servers that send both carry the same text in each (OpenRouter also repeats it in
  // `reasoning_details`, not read): both are checked, one is taken.
  const [reasoningContent, reasoningAlias] = [text('reasoning_content'), text('reasoning')];
  const reasoning = reasoningContent || reasoningAlias;
  const calls = delta.tool_calls ?? [];
  if (!Array.isArray(calls)) throw fail('a "delta.tool_calls" that is not an array');
  if (calls.length > maxToolCalls) {
    throw fail(`${calls.length} tool calls at once (at most ${maxToolCalls}: maxToolCalls)`);
  }
  const toolCalls = calls.map((call: unknown, position): ToolCallDelta => {
    if (!isObject(call)) throw fail('a tool call that is not an object');
    const index = call.index ?? position;
    if (
      !Number.isSafeInteger(index) ||
      (index as number) < 0 ||
      (index as number) >= maxToolCalls
    ) {
      throw fail(
        `tool call index ${quote(JSON.stringify(index), 40)} (calls are numbered 0 to ${maxToolCalls - 1}: maxToolCalls)`,
      );
    }
    const id = call.id ?? undefined;
    if (
      id !== undefined &&
      (typeof id !== 'string' || id === '' || id.length > MAX_TOOL_CALL_ID_CHARS)
    ) {
      throw fail(`a tool call id that is not text of 1 to ${MAX_TOOL_CALL_ID_CHARS} characters`);
    }
    const fn = call.function ?? {};
    if (!isObject(fn)) throw fail('a tool call "function" that is not an object');
    const name = fn.name ?? undefined;
    const args = fn.arguments ?? undefined;
    if (name !== undefined && typeof name !== 'string') {
      throw fail(`a tool call name that is ${kindOf(name)}, not text`);
    }
    if (args !== undefined && typeof args !== 'string') {
      throw fail(`tool call arguments that are ${kindOf(args)}, not text`);
    }
    return {
      index: index as number,
      ...(id === undefined ? {} : { id }),
      ...(name === undefined ? {} : { name }),
      ...(args === undefined ? {} : { args }),
    };
  });
  return {
    ...(content === undefined ? {} : { content }),
    ...(reasoning ? { reasoning } : {}),
    toolCalls,
    finished: typeof finish === 'string' && finish !== '',
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
