import type { Envelope, RunMessage } from '@resumable/protocol';
import { isWireId, THREAD_EVENTS } from '@resumable/protocol';
import { isMessageId } from '../tabs/tab-messages.js';
import type { ChatMessage, ChatState } from './state.js';

/**
 * The thread event stream's events (`GET /threads/{id}/events`, docs/protocol.md): AG-UI
 * `CUSTOM` events named `resumable.*`, checked before they are acted on. Anything else on
 * the stream (another name, a bad value) still moves the resume point, and is ignored.
 */
export type ThreadEvent =
  | {
      kind: 'run_started';
      runId: string;
      prompt: RunMessage | null;
      /** Where the run hangs in the thread's tree (null: a new root; undefined: unsaid). */
      parentMessageId: string | null | undefined;
    }
  | { kind: 'run_ended'; runId: string; status: string }
  | { kind: 'history_changed'; reason: string };

/** The user's prompt of a `run_started`: the last `user` message of its input, if any. */
function promptOf(messages: unknown): RunMessage | null {
  if (!Array.isArray(messages)) return null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Partial<RunMessage> | null;
    if (typeof m === 'object' && m !== null && m.role === 'user' && isMessageId(m.id)) {
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
    case THREAD_EVENTS.runStarted:
      return isWireId(value.runId)
        ? {
            kind: 'run_started',
            runId: value.runId,
            prompt: promptOf(value.messages),
            parentMessageId:
              value.parentMessageId === null || isWireId(value.parentMessageId)
                ? value.parentMessageId
                : undefined,
          }
        : null;
    case THREAD_EVENTS.runEnded:
      return isWireId(value.runId)
        ? {
            kind: 'run_ended',
            runId: value.runId,
            status: typeof value.status === 'string' ? value.status : 'finished',
          }
        : null;
    case THREAD_EVENTS.historyChanged:
      return {
        kind: 'history_changed',
        reason: typeof value.reason === 'string' ? value.reason.slice(0, 200) : '',
      };
    default:
      return null;
  }
}

/** A run to follow, and where it hangs: its prompt under `parentMessageId`, or (no prompt) a
 * regenerated answer beside the old one. */
export interface FollowPlan {
  runId: string;
  prompt: RunMessage | null;
  parentMessageId: string | null | undefined;
  /** It ended in the same batch: followed for its stored log (its snapshot), not live. */
  ended?: true;
}

/** What a batch of thread events asks of the chat, decided once for the whole batch. */
export interface ThreadPlan {
  /**
   * The run to follow: the batch's last started run, live or (`ended`) already over — a
   * run that ended before this page heard of it is the newest all the same.
   */
  follow: FollowPlan | null;
  /** Runs ended (or history changed) that the chat does not follow: reload the history page. */
  reloadHistory: boolean;
  /** The thread was deleted (`history_changed` `deleted`): nothing after it matters. */
  deleted: boolean;
}

/**
 * A replay after a reload or a drop can hold several runs that started and ended since:
 * only the last one started is joined (live, or for its stored log when it ended too), the
 * others are history (one page reload), so a tab never attaches to runs one after another
 * to catch up.
 */
export function planThreadBatch(
  envelopes: readonly Envelope[],
  followed: string | null,
): ThreadPlan {
  let follow = null as FollowPlan | null;
  let reloadHistory = false;
  for (const { event } of envelopes) {
    const e = parseThreadEvent(event);
    if (e === null) continue;
    if (e.kind === 'history_changed' && e.reason === 'deleted') {
      return { follow: null, reloadHistory: false, deleted: true };
    }
    if (e.kind === 'run_started') {
      // A run that started and ended earlier in the batch is history now.
      if (follow?.ended) reloadHistory = true;
      const { runId, prompt, parentMessageId } = e;
      follow = { runId, prompt, parentMessageId };
    } else if (e.kind === 'history_changed') reloadHistory = true;
    else if (follow?.runId === e.runId) follow = { ...follow, ended: true };
    else if (e.runId !== followed) reloadHistory = true;
  }
  return { follow, reloadHistory, deleted: false };
}

/**
 * Where a run started elsewhere hangs, as the chat's state (null: nothing to change): its
 * prompt under `parentMessageId` (an edit made on another device is a sibling of the old
 * prompt), or, for a run without a prompt, a regenerated answer beside the old one. For the
 * run the chat follows (the caller's to say), never for its own (their POST placed them).
 */
export function placementOf(
  chat: Pick<ChatState, 'prompt' | 'regenerated' | 'sending' | 'outbox'>,
  plan: FollowPlan,
): Pick<ChatState, 'prompt'> | Pick<ChatState, 'regenerated'> | null {
  const { runId, prompt, parentMessageId } = plan;
  if (parentMessageId === undefined) return null;
  if (chat.sending?.runId === runId || chat.outbox.some((o) => o.runId === runId)) return null;
  if (prompt) {
    return { prompt: { runId, message: { ...prompt, parentId: parentMessageId } as ChatMessage } };
  }
  if (parentMessageId === null || chat.regenerated?.runId === runId) return null;
  return { regenerated: { runId, parentId: parentMessageId } };
}
