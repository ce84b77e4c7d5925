import type { Message, RunAgentInput } from '@resumable/protocol';
import { isWireId, parseResume, ResumableError, runIdProblem } from '@resumable/protocol';
import { MAX_DEPTH } from './defaults.js';

const ROLES = new Set([
  'user',
  'assistant',
  'system',
  'developer',
  'tool',
  'activity',
  'reasoning',
]);

/** `POST /runs` body after validation: `threadId` / `runId` may still be absent. */
export type RunRequest = Omit<RunAgentInput, 'threadId' | 'runId'> & {
  /** The thread to run in; absent, the `POST /runs` starts a new thread. */
  threadId?: string;
  /**
   * The client's id for the run: 22-200 characters with 122 random bits (a random UUID),
   * since it is a secret. Absent, the server makes one. A repeated id starts nothing and
   * answers that run.
   */
  runId?: string;
  /** The message the run hangs under (protocol.md, "Branches"); null = a new root. */
  parentMessageId?: string | null;
};

function bad(message: string): ResumableError {
  return new ResumableError('bad_request', message);
}

/** `.` and `..` are path segments a URL resolves away: never ids. */
export function isValidId(value: string): boolean {
  return isWireId(value);
}

/** Whether `value` nests deeper than `max` (iterative: a hostile depth cannot overflow). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Checks an untrusted `POST /runs` body (the AG-UI `RunAgentInput` shape). Only what the
 * server relies on is checked, with a precise message for each field; unknown fields pass
 * through to the agent untouched.
 */
export function parseRunRequest(body: unknown): RunRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('the body must be a JSON object (an AG-UI RunAgentInput)');
  }
  if (nestsDeeperThan(body, MAX_DEPTH)) {
    throw bad(`the body nests deeper than ${MAX_DEPTH} levels`);
  }
  const b = body as Record<string, unknown>;
  const out: RunRequest = {
    ...(b as object),
    messages: parseMessages(b.messages),
    tools: optionalArray(b.tools, 'tools').map(checkTool),
    context: optionalArray(b.context, 'context').map(checkContext),
  } as RunRequest;
  if (b.threadId !== undefined && b.threadId !== null) {
    if (typeof b.threadId !== 'string' || !isValidId(b.threadId)) {
      throw bad('threadId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..');
    }
    out.threadId = b.threadId;
  } else {
    delete out.threadId;
  }
  if (b.runId !== undefined && b.runId !== null) {
    const problem = runIdProblem(b.runId);
    if (problem !== null) throw bad(problem);
    out.runId = b.runId as string;
  } else {
    delete out.runId;
  }
  if (b.parentMessageId !== undefined) {
    if (
      b.parentMessageId !== null &&
      (typeof b.parentMessageId !== 'string' || !isValidId(b.parentMessageId))
    ) {
      throw bad('parentMessageId must be null or a message id');
    }
  }
  if (
    b.forwardedProps !== undefined &&
    b.forwardedProps !== null &&
    (typeof b.forwardedProps !== 'object' || Array.isArray(b.forwardedProps))
  ) {
    throw bad('forwardedProps must be an object');
  }
  if (b.state !== undefined && b.state !== null && typeof b.state !== 'object') {
    throw bad('state must be an object or an array');
  }
  const resume = parseResume(b.resume);
  if (resume === undefined) delete out.resume;
  else out.resume = resume;
  return out;
}

function optionalArray(value: unknown, name: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad(`${name} must be an array`);
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An AG-UI tool: agents read its name, description and JSON-schema parameters. */
function checkTool(tool: unknown, i: number): never {
  if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
    throw bad(`tools[${i}] must be an object with a name (a non-empty string)`);
  }
  if (tool.description !== undefined && typeof tool.description !== 'string') {
    throw bad(`tools[${i}].description must be a string`);
  }
  if (tool.parameters !== undefined && !isObject(tool.parameters)) {
    throw bad(`tools[${i}].parameters must be a JSON schema object`);
  }
  return tool as never;
}

/** An AG-UI context entry: `{description, value}`, both strings. */
function checkContext(entry: unknown, i: number): never {
  if (
    !isObject(entry) ||
    typeof entry.description !== 'string' ||
    typeof entry.value !== 'string'
  ) {
    throw bad(`context[${i}] must be {description, value} with strings`);
  }
  return entry as never;
}

function parseMessages(value: unknown): Message[] {
  if (!Array.isArray(value)) throw bad('messages must be an array of AG-UI messages');
  value.forEach((m, i) => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) {
      throw bad(`messages[${i}] must be an object`);
    }
    const { id, role, content } = m as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') throw bad(`messages[${i}].id must be a string`);
    if (typeof role !== 'string' || !ROLES.has(role)) {
      throw bad(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`);
    }
    const where = `messages[${i}]`;
    if (role === 'user' || role === 'system' || role === 'developer' || role === 'tool') {
      if (typeof content !== 'string' && !Array.isArray(content)) {
        throw bad(`${where}.content must be a string or an array of parts`);
      }
    } else if (content !== undefined && content !== null && typeof content !== 'string') {
      if (role === 'assistant') throw bad(`${where}.content must be a string`);
    }
    if (Array.isArray(content)) {
      content.forEach((part, j) => {
        checkPart(part, `${where}.content[${j}]`);
      });
    }
    if (role === 'assistant') checkToolCalls((m as { toolCalls?: unknown }).toolCalls, where);
    if (role === 'tool' && typeof (m as { toolCallId?: unknown }).toolCallId !== 'string') {
      throw bad(`${where}.toolCallId must be a string (the tool call this message answers)`);
    }
  });
  return value as Message[];
}

/** A content part: `{type:"text", text}` or another typed part (`binary`…). */
function checkPart(part: unknown, where: string): void {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) {
    throw bad(`${where} must be an object`);
  }
  const { type, text } = part as Record<string, unknown>;
  if (typeof type !== 'string' || type === '') throw bad(`${where}.type must be a string`);
  if (type === 'text' && typeof text !== 'string') throw bad(`${where}.text must be a string`);
}

function checkToolCalls(value: unknown, where: string): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) throw bad(`${where}.toolCalls must be an array`);
  value.forEach((call, k) => {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    if (
      typeof (call as { id?: unknown } | null)?.id !== 'string' ||
      typeof fn?.name !== 'string' ||
      typeof fn.arguments !== 'string'
    ) {
      throw bad(
        `${where}.toolCalls[${k}] must be {id, type:"function", function:{name, arguments}} with strings`,
      );
    }
  });
}
