import type { Envelope, RunMessage } from '@resumable/protocol';

/**
 * The thread event stream's events (`GET /threads/{id}/events`, docs/protocol.md): AG-UI
 * `CUSTOM` events named `resumable.*`, checked before they are acted on. Anything else on
 * the stream (another name, a bad value) still moves the resume point, and is ignored.
 */
export type ThreadEvent =
  | { kind: 'run_started'; runId: string; prompt: RunMessage | null }
  | { kind: 'run_ended'; runId: string; status: string }
  | { kind: 'history_changed'; reason: string };

const MAX_ID_CHARS = 256;

const isId = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= MAX_ID_CHARS;

/** The user's prompt of a `run_started`: the last `user` message of its input, if any. */
function promptOf(messages: unknown): RunMessage | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Partial<RunMessage> | null;
    if (typeof m === 'object' && m !== null && m.role === 'user' && isId(m.id)) {
      return m as RunMessage;
    }
  }
  return null;
}

/** One thread event, or null when it is not one this client acts on. */
export function parseThreadEvent(event: unknown): ThreadEvent | null {
  const e = event as { type?: unknown; name?: unknown; value?: unknown } | null;
  if (typeof e !== 'object' || e === null || e.type !== 'CUSTOM') return null;
  const value = (typeof e.value === 'object' && e.value !== null ? e.value : {}) as Record<
    string,
    unknown
  >;
  switch (e.name) {
    case 'resumable.run_started':
      return isId(value.runId)
        ? { kind: 'run_started', runId: value.runId, prompt: promptOf(value.messages) }
        : null;
    case 'resumable.run_ended':
      return isId(value.runId)
        ? {
            kind: 'run_ended',
            runId: value.runId,
            status: typeof value.status === 'string' ? value.status : 'finished',
          }
        : null;
    case 'resumable.history_changed':
      return {
        kind: 'history_changed',
        reason: typeof value.reason === 'string' ? value.reason.slice(0, 200) : '',
      };
    default:
      return null;
  }
}

/** What a batch of thread events asks of the chat, decided once for the whole batch. */
export interface ThreadPlan {
  /** The run to follow live: the batch's last started run that has not ended in it. */
  follow: { runId: string; prompt: RunMessage | null } | null;
  /** Runs ended (or history changed) that the chat does not follow: reload the history page. */
  reloadHistory: boolean;
}

/**
 * A replay after a reload or a drop can hold several runs that started and ended since:
 * only the last one still going is joined, the others are history (one page reload), so
 * a tab never attaches to runs one after another to catch up.
 */
export function planThreadBatch(
  envelopes: readonly Envelope[],
  followed: string | null,
): ThreadPlan {
  let follow: ThreadPlan['follow'] = null;
  let reloadHistory = false;
  for (const { event } of envelopes) {
    const e = parseThreadEvent(event);
    if (e === null) continue;
    if (e.kind === 'run_started') follow = { runId: e.runId, prompt: e.prompt };
    else if (e.kind === 'history_changed') reloadHistory = true;
    else {
      if (follow?.runId === e.runId) follow = null;
      if (e.runId !== followed) reloadHistory = true;
    }
  }
  return { follow, reloadHistory };
}
