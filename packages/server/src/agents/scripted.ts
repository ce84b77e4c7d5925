import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { EventType, messageText, ResumableError } from '@resumable/protocol';
import { sleep } from '../sleep.js';
import { demoInterruptFor, demoReply } from './scripted-demo.js';
import {
  answerResume,
  askFor,
  checkInterruptScript,
  SCRIPTED_INTERRUPTS,
  type ScriptedInterrupt,
} from './scripted-interrupts.js';
import { replyTokenStream, timeLead } from './scripted-reply.js';
import type { Agent, AgentLimits } from './types.js';

export { mulberry32, replyTokens, timeLead } from './scripted-reply.js';

/**
 * What a `scriptedAgent` run does: how long its reply is, how fast it comes, and whether
 * it fails or asks a person. A run's `forwardedProps.script` overrides them one by one.
 */
export interface ScriptOptions {
  /**
   * Text deltas in the reply (`TEXT_MESSAGE_CONTENT` events).
   * @default env SCRIPTED_TOKENS, else 60
   */
  tokens: number;
  /**
   * Pace of the reply; `0` means as fast as the server takes them.
   * @default env SCRIPTED_TPS, else 40
   */
  tokensPerSecond: number;
  /**
   * Varies the filler words, so two runs with the same prompt can differ on purpose.
   * @default 0
   */
  seed: number;
  /**
   * Throw after this many text deltas: the run ends with `RUN_ERROR code:"agent_failed"`.
   * @default none: the run finishes
   */
  failAt?: number;
  /**
   * `demo`: the showcase reply of scripted-demo.ts (streamed reasoning, a tool call, then
   * Markdown with a table and code) instead of filler sentences.
   * @default env SCRIPTED_REPLY, else filler
   */
  reply?: 'demo';
  /**
   * Ask a person instead of replying: `tool_approval` (a `delete_file` call waits for
   * approve/deny), `question` (a free-form answer) or `client_tool` (the first tool the
   * client declared in `tools` runs in the page). The run ends with that interrupt; the
   * continuation (`resume`) replies to the answer. See scripted-interrupts.ts.
   * @default none (the demo reply asks for approval when the prompt says "delete" or "approve")
   */
  interrupt?: ScriptedInterrupt;
}

/** `scriptedAgent`'s defaults for every run (`ScriptOptions`), and its clock. */
export interface ScriptedAgentOptions extends Partial<ScriptOptions> {
  /**
   * Clock of the `get_time` tool (a test's fixed time).
   * @default () => new Date()
   */
  now?: () => Date;
}

const MAX_TOKENS = 1_000_000;
/** Events of a scripted run besides its text deltas (start/end, a tool call). */
const OVERHEAD_EVENTS = 12;

/**
 * A deterministic agent that needs no network: the reply is Markdown derived from the
 * prompt (a heading, filler sentences, a fenced code block), paced by `tokensPerSecond`.
 * A prompt that asks for the time gets a `get_time` tool call (start, args, end, result)
 * first. `forwardedProps.script` overrides the defaults per run, so tests and the demo can
 * make long, fast, slow or failing runs; a script the run could not finish within the
 * server's limits is refused at `POST` (400), not failed later.
 */
export function scriptedAgent(defaults: ScriptedAgentOptions = {}): Agent {
  const envTokens = numberFromEnv('SCRIPTED_TOKENS');
  const envTps = numberFromEnv('SCRIPTED_TPS');
  const base: ScriptOptions = {
    tokens: defaults.tokens ?? envTokens ?? 60,
    tokensPerSecond: defaults.tokensPerSecond ?? envTps ?? 40,
    seed: defaults.seed ?? 0,
    ...(defaults.failAt === undefined ? {} : { failAt: defaults.failAt }),
    // Given to the agent, or else from the environment (both were documented; only the
    // environment was read).
    ...(defaults.reply === 'demo' || process.env.SCRIPTED_REPLY === 'demo'
      ? { reply: 'demo' as const }
      : {}),
    ...(defaults.interrupt === undefined ? {} : { interrupt: defaults.interrupt }),
  };
  const now = defaults.now ?? (() => new Date());
  const agent: Agent = (input, ctx) => {
    const script = scriptOf(input, base);
    // A regenerate answers differently: the n-th answer to a prompt uses seed + n.
    const seed = (script.seed + (ctx.answerIndex ?? 0)) % 2 ** 31;
    return run(input, ctx.signal, { ...script, seed }, now);
  };
  agent.validate = (input, limits) => {
    const script = scriptOf(input, base);
    checkFits(script, limits);
    // A continuation never asks, so it needs no tool to ask about.
    const continues = (input.resume ?? []).length > 0;
    if (script.interrupt && !continues) checkInterruptScript(script.interrupt, input);
  };
  return agent;
}

async function* run(
  input: RunAgentInput,
  signal: AbortSignal,
  script: ScriptOptions,
  now: () => Date,
): AsyncGenerator<AGUIEvent> {
  // A continuation never asks again: it answers the answers (and, after cancellations a
  // new prompt made, goes on to reply to that prompt).
  if (input.resume && input.resume.length > 0 && !(yield* answerResume(input))) return;
  const prompt = lastUserText(input);
  const ask = script.interrupt ?? (script.reply === 'demo' ? demoInterruptFor(prompt) : undefined);
  if (ask) return yield* askFor(ask, input);
  if (script.reply === 'demo') return yield* demoReply(input, signal, script.tokensPerSecond);
  const id = `${input.runId}`;
  const messageId = `msg-${id}`;
  let lead: string[] = [];
  if (/\btime\b/i.test(prompt)) {
    const toolCallId = `call-${id}`;
    const time = now().toISOString();
    lead = timeLead(time);
    yield {
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName: 'get_time',
      parentMessageId: messageId,
    };
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: '{"timezone":' };
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: '"UTC"}' };
    yield { type: EventType.TOOL_CALL_END, toolCallId };
    yield {
      type: EventType.TOOL_CALL_RESULT,
      messageId: `tool-${id}`,
      toolCallId,
      content: JSON.stringify({ time }),
      role: 'tool',
    };
  }
  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
  const interval = script.tokensPerSecond > 0 ? 1000 / script.tokensPerSecond : 0;
  const started = performance.now();
  let i = 0;
  for (const delta of replyTokenStream(prompt, script.tokens, script.seed, lead)) {
    if (signal.aborted) return;
    if (script.failAt !== undefined && i === script.failAt) {
      throw new Error(`scripted failure after ${i} tokens`);
    }
    if (interval > 0) {
      // Paced against the start, not the previous token, so timer lateness does not add up.
      const wait = started + i * interval - performance.now();
      if (wait > 1) await sleep(wait, signal);
      if (signal.aborted) return;
    } else if (i % 256 === 255) {
      // Even at full speed, let the server breathe between bursts.
      await new Promise((resolve) => setImmediate(resolve));
    }
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
    i++;
  }
  if (script.failAt !== undefined && script.failAt >= i) {
    throw new Error(`scripted failure after ${i} tokens`);
  }
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
}

function scriptOf(input: RunAgentInput, base: ScriptOptions): ScriptOptions {
  const raw = (input.forwardedProps as { script?: unknown } | undefined)?.script;
  if (raw === undefined || raw === null) return base;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ResumableError('bad_request', 'forwardedProps.script must be an object');
  }
  const s = raw as Record<string, unknown>;
  const script = { ...base };
  if (s.tokens !== undefined) script.tokens = int(s.tokens, 'tokens', 0, MAX_TOKENS);
  if (s.tokensPerSecond !== undefined) {
    const tps = s.tokensPerSecond;
    if (typeof tps !== 'number' || !(tps >= 0) || !Number.isFinite(tps)) {
      throw new ResumableError('bad_request', 'script.tokensPerSecond must be a number ≥ 0');
    }
    script.tokensPerSecond = tps;
  }
  if (s.seed !== undefined) script.seed = int(s.seed, 'seed', 0, 2 ** 31 - 1);
  if (s.reply === 'demo') script.reply = 'demo';
  if (s.interrupt !== undefined && s.interrupt !== null) {
    if (!SCRIPTED_INTERRUPTS.includes(s.interrupt as ScriptedInterrupt)) {
      throw new ResumableError(
        'bad_request',
        `script.interrupt must be one of ${SCRIPTED_INTERRUPTS.join(', ')}`,
      );
    }
    script.interrupt = s.interrupt as ScriptedInterrupt;
  }
  if (s.failAt !== undefined && s.failAt !== null) {
    script.failAt = int(s.failAt, 'failAt', 0, MAX_TOKENS);
  }
  return script;
}

/** A script whose run would outgrow the server's event limit or deadline is a 400. */
function checkFits(script: ScriptOptions, limits: AgentLimits): void {
  const events = script.tokens + OVERHEAD_EVENTS;
  if (events > limits.maxEventsPerRun) {
    throw new ResumableError(
      'bad_request',
      `script.tokens ${script.tokens} would make a run of over ${limits.maxEventsPerRun} events, the server's limit`,
    );
  }
  if (script.tokensPerSecond > 0 && script.tokens > 0) {
    const ms = (script.tokens / script.tokensPerSecond) * 1000;
    if (ms > limits.maxRunMs) {
      throw new ResumableError(
        'bad_request',
        `script.tokens ${script.tokens} at ${script.tokensPerSecond} per second would last ${Math.ceil(ms / 1000)} s, over the server's run limit of ${Math.floor(limits.maxRunMs / 1000)} s`,
      );
    }
  }
}

function int(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ResumableError(
      'bad_request',
      `script.${name} must be an integer from ${min} to ${max}`,
    );
  }
  return value;
}

function lastUserText(input: RunAgentInput): string {
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const m = input.messages[i]!;
    if (m.role === 'user') return messageText(m);
  }
  return '';
}

function numberFromEnv(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a non-negative number, got "${text}"`);
  }
  return value;
}
