import { errorAction, isWireId } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import {
  DELETE_CHECKS,
  MAX_IN_FLIGHT,
  MAX_KNOWN,
  READ_BUDGET,
  READ_WINDOW_MS,
} from '../base/defaults.js';
import { toResumable } from '../base/errors.js';
import type { BackoffOptions } from '../retry/backoff.js';
import { Retrier, snapshotReadAction } from '../retry/retrier.js';
import type { RunSession } from '../run/run-session.js';
import { isMessageId } from '../tabs/tab-messages.js';
import type { ChatHeardRun, ChatMessage, ChatState, Regenerated } from './state.js';

/** What a tab tells the others when it started a run on a key. */
export interface TabRunMessage {
  type: 'run';
  key: string;
  runId: string;
  threadId: string;
  token: string | null;
  /** Absent for a regenerate or a continuation answering interrupts (they have no prompt). */
  prompt?: ChatMessage;
  /** A regenerate: the prompt its answer hangs under. */
  regenerated?: Regenerated | null;
}

/** Another tab's "I started a run on this key" message, checked; null for anything else. */
export function parseTabMessage(
  message: unknown,
  key: string,
): (Omit<TabRunMessage, 'token' | 'prompt'> & Partial<TabRunMessage>) | null {
  const m = message as Partial<TabRunMessage> | null;
  if (m?.type !== 'run' || m.key !== key || !isMessageId(m.runId) || !isMessageId(m.threadId))
    return null;
  // A prompt is a user message with an id (another version, or garbage, may post anything).
  const p = m.prompt as Partial<ChatMessage> | null | undefined;
  const prompt = typeof p === 'object' && p !== null && isMessageId(p.id) && p.role === 'user';
  return {
    type: 'run',
    key,
    runId: m.runId,
    threadId: m.threadId,
    ...(typeof m.token === 'string' ? { token: m.token } : {}),
    ...(prompt ? { prompt: m.prompt } : {}),
    ...(m.regenerated?.runId === m.runId && isMessageId(m.regenerated.parentId)
      ? { regenerated: { runId: m.runId, parentId: m.regenerated.parentId } }
      : {}),
  };
}

/**
 * A run another tab names (its "I started a run" message, the leader's `lead`, a thread batch
 * it posted) is followed once the server knows it in that thread: following a run means
 * leaving the one shown, so a made-up or stale announcement (a buggy tab, another version)
 * would otherwise take the chat off its live reply. One `GET /runs/{id}` per announced run,
 * shared by every way it was heard of and by its join (`SharedStream.keepFresh`); at most
 * `MAX_IN_FLIGHT` at a time, and `READ_BUDGET` per `READ_WINDOW_MS` whatever the ids (ids
 * cycling past the `MAX_KNOWN` answers kept would otherwise each cost a read).
 */

interface Answer {
  /**
   * The run's thread as the server named it; null: refused, or the read failed. Kept by run
   * id with the thread, not as a yes/no: a made-up thread for a real run must not make the
   * real announcements unknown.
   */
  thread: Promise<string | null>;
  /** Asked again from then on: a failed read's (the retry policy's delay); else never. */
  until: number;
  /**
   * This run's failed reads in a row, judged and spaced by the one policy (never given up
   * on: a real run is asked about again however long its server fails).
   */
  retries: Retrier;
}

interface Known {
  answers: Map<string, Answer>;
  inFlight: number;
  /** The read budget's window: its start and the reads in it. */
  windowAt: number;
  reads: number;
}

const bySession = new WeakMap<RunSession, Known>();

/**
 * True when the server answers run `runId`'s snapshot in thread `threadId` (or the session
 * follows it already). A server's refusal (404, another thread) is remembered; a failed read
 * (network, 5xx, 429) is remembered for the retry policy's delay (its `Retry-After` when it
 * gave one, clamped by `backoff`), growing while it keeps failing: the leader's `lead` every
 * 500 ms asks again only then.
 */
export function knownRun(
  run: RunSession,
  runId: string,
  threadId: string,
  token: string | null,
  backoff?: BackoffOptions,
): Promise<boolean> {
  if (run.getState().runId === runId) return Promise.resolve(true);
  const { env } = run;
  const now = env.now();
  let known = bySession.get(run);
  if (!known) {
    known = { answers: new Map(), inFlight: 0, windowAt: now, reads: 0 };
    bySession.set(run, known);
  }
  const { answers } = known;
  const kept = answers.get(runId);
  const inThread = (thread: string | null) => thread === threadId;
  if (kept && now < kept.until) return kept.thread.then(inThread);
  if (known.inFlight >= MAX_IN_FLIGHT) return Promise.resolve(false);
  if (now - known.windowAt >= READ_WINDOW_MS) {
    known.windowAt = now;
    known.reads = 0;
  }
  if (known.reads >= READ_BUDGET) return Promise.resolve(false);
  known.reads++;
  const state = known;
  state.inFlight++;
  const entry: Answer = {
    thread: Promise.resolve(null),
    until: Infinity,
    retries: kept?.retries ?? new Retrier(env, { backoff, maxAttemptsWithoutProgress: Infinity }),
  };
  entry.thread = run.api.getRun(runId, token).then(
    (snapshot) => {
      // A snapshot before the run's first event may not name its thread yet: the asker's.
      const thread = snapshot.threadId === '' ? threadId : snapshot.threadId;
      // The join that follows reads it from here, not from the server again.
      if (thread === threadId) run.shared.keepFresh(snapshot);
      return thread;
    },
    (error) => {
      // The server's own no (404, 401, 403) is final; a read that failed is asked again
      // after the policy's delay.
      const typed = toResumable(error);
      const verdict = entry.retries.failed(typed, { action: snapshotReadAction(typed) });
      if (verdict.retry) entry.until = env.now() + verdict.delay;
      return null;
    },
  );
  void entry.thread.finally(() => {
    state.inFlight--;
  });
  answers.delete(runId);
  answers.set(runId, entry);
  if (answers.size > MAX_KNOWN) answers.delete(answers.keys().next().value as string);
  return entry.thread.then(inThread);
}

/** What following an announced run needs of its chat. */
export interface AnnouncedHost {
  readonly run: RunSession;
  readonly store: Pick<StoreApi<ChatState>, 'getState'>;
  /** The run, heard of: the conversation machine decides. */
  heard(run: ChatHeardRun): void;
}

/** Another tab's "I started a run on this key" (checked by `parseTabMessage`; null: none). */
export function followAnnounced(
  host: AnnouncedHost,
  m: (Omit<TabRunMessage, 'token' | 'prompt'> & Partial<TabRunMessage>) | null,
  backoff?: BackoffOptions,
): void {
  // Ids the server would not take cost no read (`parseTabMessage` bounds only their length).
  if (m === null || !isWireId(m.runId) || !isWireId(m.threadId)) return;
  const token = m.token ?? host.store.getState().token;
  void knownRun(host.run, m.runId, m.threadId, token, backoff).then((known) => {
    if (!known) return;
    const prompt = m.prompt ? { runId: m.runId, message: m.prompt } : null;
    const shown = { prompt, ...(m.regenerated ? { regenerated: m.regenerated } : {}) };
    host.heard({ runId: m.runId, threadId: m.threadId, token, ended: false, shown });
  });
}

/**
 * A thread another tab says was deleted (`history_changed` `deleted` in its thread batch):
 * true once the server answers `404 thread_not_found` for it. The server announces a
 * deletion before it removes the thread (a running run is ended first), so a thread still
 * there is read again, spaced by the retry policy, `DELETE_CHECKS` times at most; `live()`
 * false (the chat let go, another thread) ends the wait.
 */
export async function threadGone(
  run: RunSession,
  threadId: string,
  token: string | null,
  backoff: BackoffOptions | undefined,
  live: () => boolean,
): Promise<boolean> {
  const { env } = run;
  const retries = new Retrier(env, { backoff });
  for (let attempt = 1; attempt <= DELETE_CHECKS; attempt++) {
    try {
      await run.api.threadBody(threadId, token);
    } catch (error) {
      const typed = toResumable(error);
      if (typed.code === 'thread_not_found') return live();
      // The server's own no (401, 403): asking again changes nothing.
      if (errorAction(typed) === 'stop') return false;
    }
    if (!live() || attempt === DELETE_CHECKS) return false;
    const ms = retries.delay(attempt);
    await new Promise<void>((resolve) => env.setTimeout(resolve, ms));
  }
  return false;
}
