import type { ResumeEntry } from '@resumable/protocol';
import {
  answerShapeProblem,
  isPlainObject,
  parseResume,
  ResumableError,
  runIdProblem,
} from '@resumable/protocol';
import { MAX_KNOWN_INTERRUPTS } from '../base/defaults.js';
import type { KnownInterrupt, LocalAnswer } from './chat-interrupts.js';

/**
 * What a chat keeps about interrupts across reloads (`interrupts:<key>`): the interrupts it
 * saw, its own answers (drafts until every open one is answered), and the browser tools it
 * started. Bounded; parsed defensively (a bad entry is dropped, not trusted).
 */
export interface InterruptRecord {
  /** The record's format version. */
  v: 1;
  /** The chat's key (`RunSessionOptions.key`): a record of another key is not read. */
  key: string;
  /** The interrupts this device saw, each with the run that asked (the newest 50 kept). */
  known: KnownInterrupt[];
  /** This device's answers, until the server confirmed them. */
  answers: LocalAnswer[];
  /** Browser tools this device started (`started` persisted before `execute` runs). */
  tools: ToolMark[];
}

/** A browser tool this device started for an interrupt. */
export interface ToolMark {
  /** The interrupt the tool answers. */
  interruptId: string;
  /**
   * `started`: persisted before the tool ran (a reload that finds it runs an idempotent tool
   * again, else shows the interrupt `interrupted`); `done`: the tool answered.
   */
  state: 'started' | 'done';
}

export const interruptRecordKey = (key: string) => `interrupts:${key}`;

export function emptyInterruptRecord(key: string): InterruptRecord {
  return { v: 1, key, known: [], answers: [], tools: [] };
}

/**
 * A stored record's shape: anything that is not one is dropped. Its answers are checked by
 * the server's rules once, where the page reads the record (`withSendableAnswers`), not on
 * every write that merges it (each answer was checked where it entered).
 */
export function parseInterruptRecord(value: unknown, key: string): InterruptRecord {
  if (!isPlainObject(value) || value.v !== 1 || value.key !== key) return emptyInterruptRecord(key);
  const list = (v: unknown) => (Array.isArray(v) ? v.slice(-MAX_KNOWN_INTERRUPTS) : []);
  const known = list(value.known).filter(
    (i): i is KnownInterrupt =>
      isPlainObject(i) &&
      typeof i.id === 'string' &&
      typeof i.reason === 'string' &&
      typeof i.runId === 'string',
  );
  const answers = list(value.answers).filter(
    (a): a is LocalAnswer =>
      isPlainObject(a) &&
      typeof a.interruptId === 'string' &&
      (a.status === 'resolved' || a.status === 'cancelled') &&
      (a.state === 'draft' || a.state === 'queued' || a.state === 'sent') &&
      (a.runId === null || typeof a.runId === 'string'),
  );
  const tools = list(value.tools).filter(
    (t): t is ToolMark =>
      isPlainObject(t) &&
      typeof t.interruptId === 'string' &&
      (t.state === 'started' || t.state === 'done'),
  );
  return { v: 1, key, known, answers, tools };
}

/**
 * The record without the answers continuation `runId` carried (refused for good). A browser
 * tool's `done` mark for one of them goes back to `started`: its answer is gone, so after a
 * reload an idempotent tool runs again and any other shows `interrupted`; left `done`,
 * nothing would ever answer its interrupt.
 */
export function withoutContinuation(record: InterruptRecord, runId: string): InterruptRecord {
  const dropped = new Set(
    record.answers.filter((a) => a.runId === runId).map((a) => a.interruptId),
  );
  return {
    ...record,
    answers: record.answers.filter((a) => a.runId !== runId),
    tools: record.tools.map((t) => (dropped.has(t.interruptId) ? { ...t, state: 'started' } : t)),
  };
}

/**
 * A read record without the answers the server would refuse (`answerProblem`); `onDropped`
 * hears each, as a `corrupt_record`: queued again as it is, it would be refused on every
 * reload and hold its interrupt `queued` for good; dropped, the interrupt is open to answer
 * again. (A queued one's continuation runId the server refuses is mended instead:
 * `answersFollowingOutbox`.)
 */
export function withSendableAnswers(
  record: InterruptRecord,
  onDropped?: (problem: ResumableError) => void,
): InterruptRecord {
  const answers = record.answers.filter(kept);
  return answers.length === record.answers.length ? record : { ...record, answers };

  function kept(a: LocalAnswer): boolean {
    const problem = answerProblem(a)?.message ?? null;
    if (problem === null) return true;
    const why = `persisted answer to interrupt ${JSON.stringify(a.interruptId)} discarded: ${problem}`;
    onDropped?.(new ResumableError('corrupt_record', why));
    return false;
  }
}

/**
 * Why the server would refuse `answer` as a resume entry (protocol's `parseResume`: the
 * interrupt id's characters, the payload's size, depth and JSON; and, with the interrupt's
 * `reason`, `answerShapeProblem`: the payload's shape), or null.
 */
export function answerProblem(
  { interruptId, status, payload }: ResumeEntry,
  reason?: string,
): ResumableError | null {
  try {
    // The server's order: the entry's shape and size, then the payload's shape.
    parseResume([{ interruptId, status, ...(payload === undefined ? {} : { payload }) }]);
    const shape = status === 'resolved' && reason ? answerShapeProblem(reason, payload) : null;
    return shape === null ? null : new ResumableError('bad_request', `payload ${shape}`);
  } catch (error) {
    return error instanceof ResumableError
      ? error
      : new ResumableError('bad_request', String(error));
  }
}

/**
 * Queued answers under the runId of the continuation that carries them, once both records
 * are read. The chat gives a stored item a new runId where the server would refuse its own
 * (`checked-record.ts`): the answers follow it (matched by interrupt id), or they and the
 * item disagree and the answers are lost. Queued answers no item carries, under a runId the
 * server would refuse, get one new runId per old one (queued again as that continuation
 * while the server has them open: nothing lost). Null when nothing changes.
 */
export function answersFollowingOutbox(
  answers: readonly LocalAnswer[],
  outbox: readonly { runId: string; resume?: readonly { interruptId: string }[] }[],
  newRunId: () => string,
): LocalAnswer[] | null {
  const carrier = new Map<string, string>();
  for (const item of outbox)
    for (const e of item.resume ?? []) carrier.set(e.interruptId, item.runId);
  const renamed = new Map<string, string>();
  const moved = (old: string) => renamed.get(old) ?? renamed.set(old, newRunId()).get(old)!;
  let changed = false;
  const next = answers.map((a) => {
    if (a.state !== 'queued' || a.runId === null) return a;
    const runId =
      carrier.get(a.interruptId) ?? (runIdProblem(a.runId) === null ? a.runId : moved(a.runId));
    if (runId === a.runId) return a;
    changed = true;
    return { ...a, runId };
  });
  return changed ? next : null;
}

/** `list` with `entry` in place of the one with the same interrupt id, newest kept. */
export function upsert<T extends { interruptId: string }>(list: readonly T[], entry: T): T[] {
  return [...list.filter((x) => x.interruptId !== entry.interruptId), entry].slice(
    -MAX_KNOWN_INTERRUPTS,
  );
}
