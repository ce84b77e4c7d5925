import type {
  Interrupt,
  InterruptStatus,
  InterruptView,
  ResumeEntry,
  RunFinishedOutcome,
  RunMessage,
} from '@resumable/protocol';
import { MAX_KNOWN_INTERRUPTS } from '../base/defaults.js';

/**
 * Human in the loop, as data: the interrupts a thread asked, and what became of each,
 * derived from three sources — the folded outcome of the followed run, the server's
 * `interrupts` statuses (`GET /threads/{id}`), and this device's persisted answers. Pure
 * functions, no I/O.
 */

/**
 * An interrupt and the run that asked it; `afterMessageId`, the last message of that run
 * when this page saw it end, places a question without a tool call in the transcript.
 */
export type KnownInterrupt = Interrupt & { runId: string; afterMessageId?: string };

/**
 * This device's answer: `draft` while other interrupts of the same run are unanswered,
 * `queued` once its continuation run id is chosen (the POST in the outbox), `sent` once
 * the server confirmed that run.
 */
export interface LocalAnswer extends ResumeEntry {
  /** Where the answer stands: `draft`, `queued` or `sent` (above). */
  state: 'draft' | 'queued' | 'sent';
  /** The continuation run that carries it (null for a draft). */
  runId: string | null;
}

/** One interrupt as a chat UI shows it. */
export interface ChatInterrupt {
  /** The interrupt's id (what `resolve(id, …)` and `cancel(id)` take). */
  id: string;
  /** `tool_approval`, `client_tool`, `question`, or an agent's own reason. */
  reason: string;
  /** What the agent asks, in words. */
  message?: string;
  /** The tool call it concerns, when it concerns one. */
  toolCallId?: string;
  /** JSON Schema of the answer the agent expects. */
  responseSchema?: unknown;
  /** The agent's own data for the UI. */
  metadata?: unknown;
  /** The run that asked. */
  runId: string;
  /** Open, or answered: resolved or cancelled. */
  status: InterruptStatus;
  /** The answer given (here or, when the server shares it, elsewhere); null while unanswered. */
  answer: ResumeEntry | null;
  /**
   * `draft`: answered here, waiting for the other open interrupts; `queued`: answered
   * here, not yet confirmed by the server (offline, or in flight). Null otherwise.
   */
  pending: 'draft' | 'queued' | null;
  /** The run that answered, when known. */
  answeredBy: string | null;
  /** False when another tab or device answered it (or the thread moved on without this page). */
  answeredHere: boolean;
  /** The tool call it concerns (approval, browser tool): name and JSON arguments. */
  tool: { name: string; arguments: string } | null;
  /**
   * The message it belongs after in the transcript: the one holding its tool call, else
   * the asking run's last message; null when neither is known (show it at the end).
   */
  anchor: string | null;
  /**
   * A browser tool running in this page, or `interrupted`: started before a reload and not
   * declared idempotent, so the user decides (run again, or cancel). Null otherwise.
   */
  execution: 'running' | 'interrupted' | null;
}

/** The interrupts an outcome asks for, tagged with their run. */
export function interruptsOf(
  outcome: RunFinishedOutcome | null | undefined,
  runId: string | null,
  afterMessageId?: string,
): KnownInterrupt[] {
  if (runId === null || outcome?.type !== 'interrupt' || !Array.isArray(outcome.interrupts)) {
    return [];
  }
  return outcome.interrupts
    .filter((i) => typeof i?.id === 'string' && typeof i.reason === 'string')
    .map((i) => ({ ...i, runId, ...(afterMessageId ? { afterMessageId } : {}) }));
}

/** A `GET /threads/{id}` body's `interrupts`, checked entry by entry (anything odd dropped). */
export function parseServerInterrupts(value: unknown): InterruptView[] {
  if (!Array.isArray(value)) return [];
  const out: InterruptView[] = [];
  for (const raw of value.slice(0, MAX_KNOWN_INTERRUPTS * 4)) {
    const i = raw as Partial<InterruptView> | null;
    if (typeof i !== 'object' || i === null) continue;
    if (typeof i.id !== 'string' || typeof i.reason !== 'string' || typeof i.runId !== 'string')
      continue;
    if (i.status !== 'open' && i.status !== 'resolved' && i.status !== 'cancelled') continue;
    const entry: InterruptView = { ...(i as InterruptView) };
    if (typeof i.answeredBy !== 'string') delete entry.answeredBy;
    out.push(entry);
  }
  return out;
}

/** Merges `incoming` into `known` by id (incoming wins), newest `MAX_KNOWN_INTERRUPTS` kept. */
export function rememberInterrupts(
  known: readonly KnownInterrupt[],
  incoming: readonly KnownInterrupt[],
): readonly KnownInterrupt[] {
  if (incoming.length === 0) return known;
  const byId = new Map<string, KnownInterrupt>();
  for (const i of known) byId.set(i.id, i);
  let changed = false;
  for (const i of incoming) {
    const {
      status: _s,
      answeredBy: _a,
      payload: _p,
      ...base
    } = i as KnownInterrupt & Partial<InterruptView>;
    const old = byId.get(i.id);
    if (old && old.runId === base.runId && (old.afterMessageId || !base.afterMessageId)) continue;
    byId.set(i.id, old?.afterMessageId ? { ...base, afterMessageId: old.afterMessageId } : base);
    changed = true;
  }
  if (!changed) return known;
  return [...byId.values()].slice(-MAX_KNOWN_INTERRUPTS);
}

/** What `deriveInterrupts` derives the interrupts from: their three sources and the run. */
export interface DeriveInput {
  /** The interrupts seen so far (`InterruptRecord.known`). */
  known: readonly KnownInterrupt[];
  /** The server's statuses (`GET /threads/{id}`'s `interrupts`); `[]` before it is read. */
  server: readonly InterruptView[];
  /** This device's answers (`InterruptRecord.answers`). */
  answers: readonly LocalAnswer[];
  /** The followed run: its id and folded outcome. */
  run: { runId: string | null; outcome: RunFinishedOutcome | null; lastMessageId?: string };
  /** The transcript, to find the tool call an interrupt concerns. */
  messages: readonly RunMessage[];
  /** Browser tool executions by interrupt id (`browser-tools.ts`). */
  executions?: ReadonlyMap<string, 'running' | 'interrupted'>;
}

/**
 * What became of each interrupt. The server's final status wins; then this device's
 * confirmed answer; an interrupt of a run the thread has moved past (another tab's
 * continuation followed) counts as answered elsewhere until the server says more; a draft
 * or queued answer keeps it open, marked `pending`.
 */
export function deriveInterrupts(input: DeriveInput): ChatInterrupt[] {
  const { run } = input;
  const all = rememberInterrupts(input.known, [
    ...input.server,
    ...interruptsOf(run.outcome, run.runId, run.lastMessageId),
  ]);
  const server = new Map(input.server.map((s) => [s.id, s]));
  const answers = new Map(input.answers.map((a) => [a.interruptId, a]));
  const tools = toolCallsOf(input.messages);
  return all.map((i) => {
    const s = server.get(i.id);
    const mine = answers.get(i.id) ?? null;
    const base = {
      id: i.id,
      reason: i.reason,
      runId: i.runId,
      ...(i.message === undefined ? {} : { message: i.message }),
      ...(i.toolCallId === undefined ? {} : { toolCallId: i.toolCallId }),
      ...(i.responseSchema === undefined ? {} : { responseSchema: i.responseSchema }),
      ...(i.metadata === undefined ? {} : { metadata: i.metadata }),
      tool: toolOf(i, tools),
      anchor:
        (i.toolCallId ? tools.get(i.toolCallId)?.messageId : undefined) ?? i.afterMessageId ?? null,
      execution: input.executions?.get(i.id) ?? null,
    };
    const answerOf = (a: ResumeEntry): ResumeEntry => ({
      interruptId: i.id,
      status: a.status,
      ...(a.payload === undefined ? {} : { payload: a.payload }),
    });
    if (s && s.status !== 'open') {
      const by = s.answeredBy ?? null;
      const here = mine !== null && mine.runId !== null && mine.runId === by;
      const shared = s.status === 'resolved' && 'payload' in s ? { payload: s.payload } : {};
      const answer = here
        ? answerOf(mine)
        : answerOf({ interruptId: i.id, status: s.status, ...shared });
      return {
        ...base,
        status: s.status,
        answer,
        pending: null,
        answeredBy: by,
        answeredHere: here,
      };
    }
    if (mine?.state === 'sent') {
      return {
        ...base,
        status: mine.status,
        answer: answerOf(mine),
        pending: null,
        answeredBy: mine.runId,
        answeredHere: true,
      };
    }
    const superseded = run.runId !== null && run.runId !== i.runId && !s;
    if (superseded && mine?.runId !== run.runId) {
      return {
        ...base,
        status: 'resolved' as const,
        answer: null,
        pending: null,
        answeredBy: run.runId,
        answeredHere: false,
      };
    }
    return {
      ...base,
      status: 'open' as const,
      answer: mine ? answerOf(mine) : null,
      pending: mine ? (mine.state === 'draft' ? ('draft' as const) : ('queued' as const)) : null,
      answeredBy: null,
      answeredHere: false,
    };
  });
}

/**
 * The interrupts one continuation answers: the open ones of the newest run that has any
 * (a resume must answer every open interrupt of the thread).
 */
export function openBatch(interrupts: readonly ChatInterrupt[]): ChatInterrupt[] {
  const open = interrupts.filter((i) => i.status === 'open');
  const last = open.at(-1);
  return last ? open.filter((i) => i.runId === last.runId) : [];
}

type FoundCall = { name: string; arguments: string; messageId: string };

function toolCallsOf(messages: readonly RunMessage[]): Map<string, FoundCall> {
  const calls = new Map<string, FoundCall>();
  for (const m of messages) {
    for (const c of m.toolCalls ?? []) calls.set(c.id, { ...c.function, messageId: m.id });
  }
  return calls;
}

function toolOf(
  i: KnownInterrupt,
  calls: Map<string, FoundCall>,
): { name: string; arguments: string } | null {
  const call = i.toolCallId ? calls.get(i.toolCallId) : undefined;
  if (call) return { name: call.name, arguments: call.arguments };
  // An agent that asks without emitting the tool call names it in the metadata.
  const meta = i.metadata as { toolName?: unknown; args?: unknown } | undefined;
  if (meta && typeof meta.toolName === 'string') {
    const args = typeof meta.args === 'string' ? meta.args : JSON.stringify(meta.args ?? {});
    return { name: meta.toolName, arguments: args };
  }
  return null;
}
