import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { EventType, messageText, ResumableError } from '@resumable/protocol';
import { sleep } from '../sleep.js';
import { demoReply } from './scripted-demo.js';
import type { Agent } from './types.js';

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
  /** Throw after this many text deltas: the run ends with `RUN_ERROR code:"agent_failed"`. */
  failAt?: number;
  /** `demo`: the showcase reply of scripted-demo.ts. @default env SCRIPTED_REPLY, else filler */
  reply?: 'demo';
}

export interface ScriptedAgentOptions extends Partial<ScriptOptions> {
  /** Clock of the `get_time` tool. @default () => new Date() */
  now?: () => Date;
}

const MAX_TOKENS = 1_000_000;
const WORDS = (
  'resume offset stream replay durable event log client server token reload network ' +
  'thread run answer chunk cursor snapshot fold retry backoff signal heartbeat queue ' +
  'order exactly once store append tail reader writer record state message delta'
).split(' ');

/**
 * A deterministic agent that needs no network: the reply is Markdown derived from the
 * prompt (a heading, filler sentences, a fenced code block), paced by `tokensPerSecond`.
 * A prompt that asks for the time gets a `get_time` tool call (start, args, end, result)
 * first. `forwardedProps.script` overrides the defaults per run, so tests and the demo can
 * make long, fast, slow or failing runs.
 */
export function scriptedAgent(defaults: ScriptedAgentOptions = {}): Agent {
  const envTokens = numberFromEnv('SCRIPTED_TOKENS');
  const envTps = numberFromEnv('SCRIPTED_TPS');
  const base: ScriptOptions = {
    tokens: defaults.tokens ?? envTokens ?? 60,
    tokensPerSecond: defaults.tokensPerSecond ?? envTps ?? 40,
    seed: defaults.seed ?? 0,
    ...(defaults.failAt === undefined ? {} : { failAt: defaults.failAt }),
    ...(process.env.SCRIPTED_REPLY === 'demo' ? { reply: 'demo' as const } : {}),
  };
  const now = defaults.now ?? (() => new Date());
  return (input, ctx) => run(input, ctx.signal, scriptOf(input, base), now);
}

async function* run(
  input: RunAgentInput,
  signal: AbortSignal,
  script: ScriptOptions,
  now: () => Date,
): AsyncGenerator<AGUIEvent> {
  if (script.reply === 'demo') return yield* demoReply(input, signal, script.tokensPerSecond);
  const prompt = lastUserText(input);
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
  const tokens = replyTokens(prompt, script.tokens, script.seed, lead);
  const interval = script.tokensPerSecond > 0 ? 1000 / script.tokensPerSecond : 0;
  const started = performance.now();
  for (let i = 0; i < tokens.length; i++) {
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
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: tokens[i]! };
  }
  if (script.failAt !== undefined && script.failAt >= tokens.length) {
    throw new Error(`scripted failure after ${tokens.length} tokens`);
  }
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
}

/**
 * The reply as exactly `count` deltas: a heading quoting the prompt, filler words, and a
 * fenced code block derived from the prompt at the end (when `count` leaves room for it).
 * `lead` (the tool's answer) comes right after the heading.
 */
export function replyTokens(
  prompt: string,
  count: number,
  seed = 0,
  lead: readonly string[] = [],
): string[] {
  const topic = prompt.trim().replace(/\s+/g, ' ').slice(0, 80) || 'your question';
  const head = ['## ', 'Answer ', 'to: ', `${topic.replace(/[#`]/g, '')}\n\n`];
  const ident = identifierOf(topic);
  const code = [
    '\n\n```ts\n',
    `const ${ident} = `,
    `${JSON.stringify(topic)};\n`,
    `console.log(${ident}.length); `,
    `// ${topic.length}\n`,
    '```\n',
  ];
  const out: string[] = [];
  for (const t of head) if (out.length < count) out.push(t);
  for (const t of lead) if (out.length < count) out.push(t);
  const fillers = Math.max(0, count - out.length - code.length);
  const random = mulberry32(hash(topic) ^ seed);
  for (let i = 0; i < fillers; i++) {
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    const end = i === fillers - 1 ? '.' : i % 12 === 11 ? '. ' : ' ';
    out.push(i % 12 === 0 ? word[0]!.toUpperCase() + word.slice(1) + end : word + end);
  }
  for (const t of code) if (out.length < count) out.push(t);
  return out;
}

/** The reply's first sentence when `get_time` answered `time` (an ISO string). */
export function timeLead(time: string): string[] {
  return ['It is ', `**${time.slice(11, 16)} UTC** `, `on ${time.slice(0, 10)}. `];
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
  if (s.failAt !== undefined && s.failAt !== null) {
    script.failAt = int(s.failAt, 'failAt', 0, MAX_TOKENS);
  }
  return script;
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

function identifierOf(text: string): string {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const ident = words
    .slice(0, 3)
    .map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1)))
    .join('');
  return /^[a-z]/.test(ident) ? ident : `answer${ident}`;
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

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * mulberry32: a tiny seeded PRNG returning numbers in [0, 1), so a seeded script
 * (or a seeded test schedule) replays exactly from its seed.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
