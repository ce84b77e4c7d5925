import { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { TabChannel } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import type { ObservedBase } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { TabRunMessage } from '../conversation/announced-runs.js';
import type { ChatHeardRun, ChatState, OutboxItem } from '../conversation/state.js';
import type { StartedRun } from '../net/run-api.js';
import type { Retrier } from '../retry/retrier.js';
import type { RunSession } from '../run/run-session.js';
import { branchInput, regeneratedOf } from './branch-view.js';
import type { ChatFeatures } from './host.js';
import { type OptimisticMessages, userContent } from './optimistic.js';
import type { ChatSessionOptions } from './options.js';

/**
 * The outbox: prompts (and regenerates, edits, answers to interrupts) persisted until the
 * server took them, sent one at a time, once each (their run id is fixed).
 *
 * Its state (`outbox`, `sending`) moves only through `outboxTransition`:
 *
 * ```
 *   queued ──► waiting ── sending ──► in flight ── sent ──────────────► (gone)
 *                 ▲                     │ failed (retried later)  ──► waiting
 *   discarded ◄───┤                     │ failed (refused)        ──► refused ── retried ──► waiting
 *                 │                     │ continuationRefused     ──► refused (a text kept) | (gone)
 *   restored ─────┘ (a stored outbox)
 * ```
 */
export interface OutboxState {
  readonly outbox: readonly OutboxItem[];
  /** The item whose POST is in flight (it stays in `outbox` until the server took it). */
  readonly sending: OutboxItem | null;
}

/** What is known of a refusal: the server's code and words (persisted with the item). */
type Refusal = { code: string; message: string };

/**
 * How an outbox moved (`ObservedOutbox.move`): the `type` of each `OutboxEvent` below, which
 * says more of each (a move missing here fails to compile where it is told).
 */
export type OutboxMove =
  /** A new item at the end. */
  | 'queued'
  /** An item taken back before it went out. */
  | 'discarded'
  /** An item's POST goes out. */
  | 'sending'
  /** The server took it (its run started), or another tab's answer made it moot. */
  | 'sent'
  /** Its POST failed: retried by the policy, or held until `retry()` (its `error` set). */
  | 'failed'
  /** A continuation the server refused for good: its answers end. */
  | 'continuationRefused'
  /** `retry()`: the first item goes out again. */
  | 'retried'
  /** A stored outbox, read back after a reload. */
  | 'restored';

export type OutboxEvent =
  /** A new item at the end; `now`: it goes out at once (shown as sending). */
  | { type: 'queued'; item: OutboxItem; now: boolean }
  /** Taken back before it went out. */
  | { type: 'discarded'; runId: string }
  /** Its POST goes out. */
  | { type: 'sending'; item: OutboxItem }
  /** The server took it (its run started), or another tab's answer made it moot. */
  | { type: 'sent'; runId: string }
  /** Its POST failed: retried by the policy (`refusal` null), or held until `retry()`. */
  | { type: 'failed'; runId: string; refusal: Refusal | null }
  /**
   * A continuation the server refused for good: its answers end; a text (or files) it
   * carried stays, as a refused prompt to retry or discard.
   */
  | { type: 'continuationRefused'; runId: string; refusal: Refusal }
  /** `retry()`: the first item's refusal is dropped, so it goes out again. */
  | { type: 'retried' }
  /** A stored outbox, read back (checked) after a reload. */
  | { type: 'restored'; outbox: readonly OutboxItem[] };

/** The one transition of the outbox's state. */
export function outboxTransition(state: OutboxState, event: OutboxEvent): OutboxState {
  const { outbox, sending } = state;
  const without = (runId: string) => outbox.filter((o) => o.runId !== runId);
  switch (event.type) {
    case 'queued':
      return { outbox: [...outbox, event.item], sending: event.now ? event.item : sending };
    case 'discarded':
      return sending?.runId === event.runId ? state : { outbox: without(event.runId), sending };
    case 'sending':
      return { outbox, sending: event.item };
    case 'sent':
      return { outbox: without(event.runId), sending: null };
    case 'failed': {
      const { runId, refusal } = event;
      const next =
        refusal === null
          ? [...outbox]
          : outbox.map((o) => (o.runId === runId ? { ...o, error: { ...refusal } } : o));
      return { outbox: next, sending: null };
    }
    case 'continuationRefused': {
      const { runId, refusal } = event;
      const next = outbox.flatMap((o) => {
        if (o.runId !== runId) return [o];
        const { resume: _ended, ...prompt } = o;
        return keepsText(o) ? [{ ...prompt, error: { ...refusal } }] : [];
      });
      return { outbox: next, sending: null };
    }
    case 'retried': {
      const [first, ...rest] = outbox;
      if (!first?.error) return state;
      const { error: _dropped, ...again } = first;
      return { outbox: [again, ...rest], sending };
    }
    case 'restored':
      return { outbox: event.outbox, sending: null };
  }
}

/** An item that still has something to send once its answers are gone: a text or files. */
function keepsText(item: OutboxItem): boolean {
  return item.text !== '' || (item.attachments?.length ?? 0) > 0;
}

/** What the outbox needs of its `ChatSession`. */
export interface OutboxHost {
  readonly store: StoreApi<ChatState>;
  readonly run: RunSession;
  readonly optimistic: OptimisticMessages;
  readonly retries: Retrier;
  readonly runInput: ChatSessionOptions['runInput'];
  readonly key: string;
  readonly features: ChatFeatures;
  channel(): TabChannel | null;
  compose(): void;
  persist(): Promise<void>;
  /** The item's POST answered 201 with `started`: its run is the current one. */
  accepted(started: StartedRun): void;
  /**
   * The item's POST failed; `named`: the run another tab or device started first (its
   * 409 says which); `left`: the item left the outbox.
   */
  refused(runId: string, named: ChatHeardRun | null, left: boolean): void;
  /** Nothing is going in the conversation (its machine): an item queued now goes out at once. */
  idle(): boolean;
  /** The chat is held: only then does its outbox go out. */
  active(): boolean;
  /** Sends what the outbox holds (nothing while the chat is let go of or disposed). */
  drain(): Promise<void>;
  /** The same, when the retry policy's delay is up. */
  retryLater(): void;
  /** The app hears a problem that changes nothing on screen (`onWarning`). */
  warn(warning: ResumableError): void;
}

/** A move of the outbox (`outboxTransition`, `observeClient`) and what it holds after it. */
export interface ObservedOutbox extends ObservedBase {
  /** A chat's outbox moved. */
  readonly type: 'outbox';
  /** The transition: `queued`, `sending`, `sent`, `failed`, `retried`, `discarded`… */
  readonly move: OutboxMove;
  /** The item it moved (its run id), or null (`retried`, `restored`). */
  readonly runId: string | null;
  /** What waits after the move, oldest first (a refused item carries its `error`). */
  readonly outbox: readonly OutboxItem[];
  /** The item whose POST is in flight, or null. */
  readonly sending: string | null;
}

/** Moves the outbox (`outboxTransition`), with `also` in the same store update. */
function move(
  host: Pick<OutboxHost, 'store' | 'run'>,
  event: OutboxEvent,
  also: Partial<ChatState> = {},
) {
  const { store } = host;
  store.setState({ ...outboxTransition(store.getState(), event), ...also });
  const runId = 'runId' in event ? event.runId : 'item' in event ? event.item.runId : null;
  tellOutbox(host, event.type, runId);
}

/** Tells the observers what the outbox holds after `move` (of item `runId`). */
export function tellOutbox(
  host: Pick<OutboxHost, 'store' | 'run'>,
  move: OutboxEvent['type'],
  runId: string | null,
): void {
  const { scope } = host.run.api;
  if (!scope || !observed()) return;
  const { outbox, sending } = host.store.getState();
  notify<ObservedOutbox>({
    type: 'outbox',
    ...scope,
    move,
    runId,
    outbox,
    sending: sending?.runId ?? null,
  });
}

/**
 * Queues `item` (persisted, then a send tried); rejects with `too_many_requests` when `max`
 * items already wait.
 */
export async function enqueueOutboxItem(
  host: OutboxHost,
  item: OutboxItem,
  max: number,
): Promise<string> {
  const { store, run } = host;
  const { outbox, sending } = store.getState();
  if (outbox.length >= max) {
    // Transient like a 429: the queue drains as replies end; the text is the caller's to keep.
    throw new ResumableError('too_many_requests', `${max} prompts are already waiting`);
  }
  // Shown as "sending" straight away when it will go out now, "queued" otherwise.
  const now = host.active() && !outbox.length && !sending && run.env.online.get() && host.idle();
  move(host, { type: 'queued', item, now }, { error: null, through: null });
  host.compose();
  await host.persist();
  await host.drain();
  return item.runId;
}

/**
 * Takes back a prompt that has not gone out (queued, or refused): removed from the outbox
 * and the record. False when it is unknown or its POST is in flight.
 */
export async function discardOutboxItem(host: OutboxHost, runId: string): Promise<boolean> {
  const { outbox, sending } = host.store.getState();
  if (sending?.runId === runId || !outbox.some((o) => o.runId === runId)) return false;
  host.optimistic.delete(runId);
  move(host, { type: 'discarded', runId });
  host.compose();
  await host.persist();
  return true;
}

/** The refused first prompt sent again (its error dropped); else the run's connection retried. */
export function retryOutbox(host: OutboxHost): void {
  const [first] = host.store.getState().outbox;
  if (first?.error) {
    move(host, { type: 'retried' }, { error: null });
    host.compose();
    void host.persist().then(() => host.retryLater());
    return;
  }
  host.store.setState({ error: null });
  host.run.retry();
  host.retryLater();
}

/**
 * POSTs one outbox item (a prompt, a regenerate, an edit, or answers to interrupts), as the
 * conversation machine asked (its `post`), and reports the answer back to it: the run it
 * started becomes the chat's (`accepted`), or the failure (`refused`), judged once
 * (ERROR_ACTIONS) — retried by the policy, a run another tab or device started first, or
 * shown. True when the item left the outbox.
 */
export async function sendOutboxItem(host: OutboxHost, item: OutboxItem): Promise<boolean> {
  const { threadId, token } = host.store.getState();
  const message = host.optimistic.of(item);
  move(host, { type: 'sending', item });
  host.compose();
  let started: StartedRun;
  try {
    started = await host.run.post({
      ...host.runInput,
      runId: item.runId,
      ...(threadId ? { threadId } : {}),
      token,
      ...(item.resume
        ? { messages: [], resume: item.resume }
        : { messages: [{ id: message.id, role: 'user', content: userContent(item) }] }),
      ...branchInput(item),
    });
  } catch (error) {
    return refused(host, item, toResumable(error), threadId, token);
  }
  host.accepted(started);
  const { pending: _p, ...accepted } = message;
  host.optimistic.delete(item.runId);
  host.retries.succeeded();
  host.run.noteRetry(null);
  move(
    host,
    { type: 'sent', runId: item.runId },
    {
      threadId: started.threadId,
      token: started.token ?? token,
      prompt: promptless(item) ? null : { runId: started.runId, message: accepted },
      regenerated: regeneratedOf(item, started.runId),
    },
  );
  host.compose();
  await host.persist();
  host.channel()?.post({
    type: 'run',
    key: host.key,
    runId: started.runId,
    threadId: started.threadId,
    token: started.token ?? token,
    ...(item.kind
      ? { regenerated: regeneratedOf(item, started.runId) }
      : promptless(item)
        ? {}
        : { prompt: accepted }),
  } satisfies TabRunMessage);
  return true;
}

/** The item's POST failed: what it means, said to the conversation machine. */
async function refused(
  host: OutboxHost,
  item: OutboxItem,
  typed: ResumableError,
  threadId: string | null,
  token: string | null,
): Promise<boolean> {
  const named = (runId: string | undefined): ChatHeardRun | null =>
    runId && threadId ? { runId, threadId, token, ended: false } : null;
  if (typed.code === 'interrupt_answered' && typed.runId && threadId) {
    // Another tab or device answered first: nothing for the user to fix. Drop this
    // answer; the conversation follows the run that answered (or follows it already).
    move(host, { type: 'sent', runId: item.runId });
    await host.persist();
    host.refused(item.runId, named(typed.runId), true);
    return true;
  }
  // One decision table (ERROR_ACTIONS) and one retry policy: a retryable failure stays
  // queued (and goes out at once on `online`); anything else, or too many answers
  // without progress, waits for the user's retry() with its error shown.
  const verdict = host.retries.failed(typed);
  const inProgress = verdict.retry && typed.code === 'run_in_progress' ? named(typed.runId) : null;
  // The session shows a failed POST (its `error`, `connection.lastError`) — but not the run
  // another device started first: that one is followed, no error of this page's.
  if (inProgress === null) host.run.noteStartFailure(typed);
  if (!verdict.retry && item.resume && verdict.error === typed) {
    // Answers the server itself refused (its error's action, not the policy's count of
    // transient failures: `no_progress` keeps them queued for retry(), like a prompt's
    // text) end, never stay queued. The interrupts' part is a chunk (off first paint): if
    // it fails to load, they stay queued with the error shown, for retry().
    host.run.noteRetry(null);
    const refusal = await host.features.continuationRefusal().catch(() => null);
    if (refusal) {
      const left = await endContinuation(host, refusal, item, typed);
      host.refused(item.runId, null, left);
      return left;
    }
  }
  const stop = verdict.retry ? null : verdict.error;
  const refusal = stop === null ? null : { code: stop.code, message: stop.message };
  move(host, { type: 'failed', runId: item.runId, refusal }, { error: stop });
  host.compose();
  await host.persist();
  // The thread already runs a reply (another tab or device): followed. The prompt goes
  // out, once (its runId is fixed), when that run ends (the conversation is idle again),
  // or on the retry below when it ended already.
  host.refused(item.runId, inProgress, false);
  // Retried by the policy whatever the `online` signal says (a server down, a browser
  // online); the wait is shown as the run's `connection.nextRetryAt`.
  const delay = verdict.retry ? host.retries.schedule(verdict.delay, host.retryLater) : null;
  host.run.noteRetry(delay === null ? null : host.run.env.now() + delay);
  return false;
}

/**
 * A continuation (answers to interrupts) the server refused for good — judged once, above
 * (any `stop`, not the policy's `no_progress`) — ends its answers: kept `queued`, they would
 * hold their interrupts for good and be queued again on every reload. Its item goes (a text
 * it carried stays, as a refused prompt), the chat shows the server's error, and the
 * interrupts' part (`ContinuationRefusal`) opens the interrupts again. True when the item
 * left the outbox.
 */
async function endContinuation(
  host: OutboxHost,
  refusal: Awaited<ReturnType<ChatFeatures['continuationRefusal']>>,
  item: OutboxItem,
  error: ResumableError,
): Promise<boolean> {
  const kept = keepsText(item);
  if (!kept) host.optimistic.delete(item.runId);
  const answers = refusal.continuationRefused(host, item.runId, error, host.warn);
  const { code, message } = error;
  move(
    host,
    { type: 'continuationRefused', runId: item.runId, refusal: { code, message } },
    {
      error,
    },
  );
  host.compose();
  await Promise.all([host.persist(), answers]);
  return !kept;
}

/** An outbox item that shows no prompt: an answer to interrupts, or a regenerate. */
function promptless(item: OutboxItem): boolean {
  return item.resume !== undefined || item.kind === 'regenerate';
}
