import type { Envelope, RunMessage, RunSnapshot } from '@resumable/protocol';
import { isWireId, parseSnapshot, ResumableError } from '@resumable/protocol';
import { MAX_BATCH_CHARS, MAX_BATCH_EVENTS, MAX_MESSAGE_ID_CHARS } from '../base/defaults.js';
import type { TabChannel } from '../base/env.js';

/**
 * The messages tabs of one conversation exchange over BroadcastChannel while one of them
 * leads. Everything received is checked here first: another tab may run another version
 * of this kit, or an extension may post garbage, so a message that is not exactly one of
 * these (version, key, sizes; run, thread and tab ids are wire ids, `isWireId`) is dropped.
 * Every message is bounded: batches are split into chunks of at most `MAX_BATCH_EVENTS`
 * events and `MAX_BATCH_CHARS` characters.
 */

/**
 * A message id another tab or the thread stream names: any non-empty string (the server
 * takes any as a message's `id`), bounded. Run and thread ids — and a branch's
 * `parentMessageId`, which the server takes only as one — are wire ids (`isWireId`): the
 * server knows no other, so one that is not is dropped before it costs a read.
 */
export const isMessageId = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= MAX_MESSAGE_ID_CHARS;

/** The run a leader follows, so a follower can join it (same fields as the tab `run` message). */
export interface RunRef {
  runId: string;
  threadId: string;
  token: string | null;
  prompt: RunMessage | null;
}

export type TabShareMessage =
  /**
   * The leader's heartbeat and announcement (on election, on a run change, to a `hello`),
   * with its resume point in `run`: a follower behind it asks for a `snapshot`.
   */
  | { v: 1; t: 'lead'; tab: string; key: string; run: RunRef | null; offset: number }
  /** A tab joined as a follower: the leader answers `lead` at once. */
  | { v: 1; t: 'hello'; tab: string; key: string }
  /** Events of a run, with their offsets, as the leader applied them. */
  | { v: 1; t: 'batch'; tab: string; key: string; runId: string; envelopes: Envelope[] }
  /** Events of the thread stream, with their offsets. */
  | { v: 1; t: 'thread'; tab: string; key: string; threadId: string; envelopes: Envelope[] }
  /**
   * A follower of an earlier version asks for the leader's folded run (its fold had a gap).
   * Answered at most once a second; this version never sends it: a gap is read from the
   * server (`tab-run-point.ts`).
   */
  | { v: 1; t: 'sync'; tab: string; key: string; runId: string; offset: number }
  /** The leader's folded run, for the follower `to` (this version's followers drop it). */
  | { v: 1; t: 'snapshot'; tab: string; key: string; to: string; snapshot: RunSnapshot };

const isOffset = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Offsets 1.., strictly increasing, each with an event object that has a string `type`. */
function parseEnvelopes(value: unknown): Envelope[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_BATCH_EVENTS) return null;
  let last = 0;
  for (const e of value as { offset?: unknown; event?: unknown }[]) {
    if (typeof e !== 'object' || e === null || !isOffset(e.offset) || e.offset <= last) return null;
    const event = e.event as { type?: unknown } | null;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return null;
    last = e.offset;
  }
  // Size last: only a message that passed the cheap checks pays for the measure.
  if (JSON.stringify(value).length > MAX_BATCH_CHARS) return null;
  return value as Envelope[];
}

function parseRunRef(value: unknown): RunRef | null | undefined {
  if (value === null) return null;
  const r = value as Partial<RunRef> | undefined;
  if (typeof r !== 'object' || !isWireId(r.runId) || !isWireId(r.threadId)) return undefined;
  if (r.token !== null && typeof r.token !== 'string') return undefined;
  const p = r.prompt as Partial<RunMessage> | null | undefined;
  const prompt =
    typeof p === 'object' && p !== null && isMessageId(p.id) && p.role === 'user' ? p : null;
  return { runId: r.runId, threadId: r.threadId, token: r.token, prompt: prompt as RunMessage };
}

/** A message for this conversation from another tab, checked; null for anything else. */
export function parseTabShareMessage(
  raw: unknown,
  key: string,
  self: string,
): TabShareMessage | null {
  const m = raw as Record<string, unknown> | null;
  if (typeof m !== 'object' || m === null || m.v !== 1 || m.key !== key) return null;
  const tab = m.tab;
  if (!isWireId(tab) || tab === self) return null;
  const base = { v: 1 as const, tab, key };
  switch (m.t) {
    case 'hello':
      return { ...base, t: 'hello' };
    case 'lead': {
      const run = parseRunRef(m.run);
      return run === undefined || !isOffset(m.offset)
        ? null
        : { ...base, t: 'lead', run, offset: m.offset };
    }
    case 'batch': {
      const envelopes = parseEnvelopes(m.envelopes);
      return isWireId(m.runId) && envelopes
        ? { ...base, t: 'batch', runId: m.runId, envelopes }
        : null;
    }
    case 'thread': {
      const envelopes = parseEnvelopes(m.envelopes);
      return isWireId(m.threadId) && envelopes
        ? { ...base, t: 'thread', threadId: m.threadId, envelopes }
        : null;
    }
    case 'sync':
      return isWireId(m.runId) && isOffset(m.offset)
        ? { ...base, t: 'sync', runId: m.runId, offset: m.offset }
        : null;
    case 'snapshot': {
      if (m.to !== self) return null;
      const snapshot = parseSnapshot(m.snapshot);
      return snapshot instanceof ResumableError || !isWireId(snapshot.runId)
        ? null
        : { ...base, t: 'snapshot', to: self, snapshot };
    }
    default:
      return null;
  }
}

/** Splits envelopes into messages within the bounds (a replay after a reload can be large). */
export function chunkEnvelopes(envelopes: readonly Envelope[]): Envelope[][] {
  const chunks: Envelope[][] = [];
  let chunk: Envelope[] = [];
  let chars = 0;
  for (const envelope of envelopes) {
    const size = JSON.stringify(envelope).length;
    if (chunk.length > 0 && (chunk.length >= MAX_BATCH_EVENTS || chars + size > MAX_BATCH_CHARS)) {
      chunks.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(envelope);
    chars += size + 1;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Posts a message, swallowing a closed channel or an uncloneable value (never fatal). */
export function post(channel: TabChannel, message: TabShareMessage): void {
  try {
    channel.post(message);
  } catch {
    // The receiving tabs resync on the next batch's gap, or take over and resume.
  }
}
