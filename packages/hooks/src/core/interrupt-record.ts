import type { KnownInterrupt, LocalAnswer } from './interrupts.js';
import { MAX_KNOWN_INTERRUPTS } from './interrupts.js';

/**
 * What a chat keeps about interrupts across reloads (`interrupts:<key>`): the interrupts it
 * saw, its own answers (drafts until every open one is answered), and the browser tools it
 * started. Bounded; parsed defensively (a bad entry is dropped, not trusted).
 */
export interface InterruptRecord {
  v: 1;
  key: string;
  known: KnownInterrupt[];
  answers: LocalAnswer[];
  /** Browser tools this device started (`started` persisted before `execute` runs). */
  tools: ToolMark[];
}

export interface ToolMark {
  interruptId: string;
  state: 'started' | 'done';
}

export const interruptRecordKey = (key: string) => `interrupts:${key}`;

export function emptyInterruptRecord(key: string): InterruptRecord {
  return { v: 1, key, known: [], answers: [], tools: [] };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseInterruptRecord(value: unknown, key: string): InterruptRecord {
  if (!isObject(value) || value.v !== 1 || value.key !== key) return emptyInterruptRecord(key);
  const list = (v: unknown) => (Array.isArray(v) ? v.slice(-MAX_KNOWN_INTERRUPTS) : []);
  const known = list(value.known).filter(
    (i): i is KnownInterrupt =>
      isObject(i) &&
      typeof i.id === 'string' &&
      typeof i.reason === 'string' &&
      typeof i.runId === 'string',
  );
  const answers = list(value.answers).filter(
    (a): a is LocalAnswer =>
      isObject(a) &&
      typeof a.interruptId === 'string' &&
      (a.status === 'resolved' || a.status === 'cancelled') &&
      (a.state === 'draft' || a.state === 'queued' || a.state === 'sent') &&
      (a.runId === null || typeof a.runId === 'string'),
  );
  const tools = list(value.tools).filter(
    (t): t is ToolMark =>
      isObject(t) &&
      typeof t.interruptId === 'string' &&
      (t.state === 'started' || t.state === 'done'),
  );
  return { v: 1, key, known, answers, tools };
}

/** `list` with `entry` in place of the one with the same interrupt id, newest kept. */
export function upsert<T extends { interruptId: string }>(list: readonly T[], entry: T): T[] {
  return [...list.filter((x) => x.interruptId !== entry.interruptId), entry].slice(
    -MAX_KNOWN_INTERRUPTS,
  );
}
