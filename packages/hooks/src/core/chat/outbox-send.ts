import type { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { TabChannel } from '../base/env.js';
import type { ChatSessionOptions, ChatState, TabRunMessage } from '../conversation/state.js';
import { withItemError } from '../conversation/state.js';
import type { Retrier } from '../retry/retrier.js';
import type { RunSession } from '../run/run-session.js';
import { toResumable } from '../run/run-session.js';
import { branchInput, regeneratedOf } from './branch-view.js';
import { type OptimisticMessages, userContent } from './optimistic.js';
import type { OutboxItem } from './types.js';

/** What sending one outbox item needs of its `ChatSession`. */
export interface OutboxHost {
  readonly store: StoreApi<ChatState>;
  readonly run: RunSession;
  readonly optimistic: OptimisticMessages;
  readonly retries: Retrier;
  readonly runInput: ChatSessionOptions['runInput'];
  readonly key: string;
  channel(): TabChannel | null;
  settleCurrent(): void;
  compose(): void;
  persist(): Promise<void>;
  followRun(
    runId: string,
    threadId: string,
    token: string | null,
    prompt: ChatState['prompt'],
  ): Promise<void>;
  /** The chat is held: only then does its outbox go out. */
  active(): boolean;
  /** Sends what the outbox holds (nothing while the chat is let go of or disposed). */
  drain(): Promise<void>;
  /** The same, when the retry policy's delay is up. */
  retryLater(): void;
  /** The app hears a problem that changes nothing on screen (`onWarning`). */
  warn(warning: ResumableError): void;
}

/**
 * POSTs one outbox item (a prompt, a regenerate, an edit, or answers to interrupts) and
 * settles the chat on its answer: the run it started becomes the chat's, or the failure is
 * judged once (ERROR_ACTIONS) — retried by the policy, followed (a run the thread already
 * runs, an answer another tab gave), or shown. True when the item left the outbox.
 */
export async function sendOutboxItem(host: OutboxHost, item: OutboxItem): Promise<boolean> {
  const { threadId, token } = host.store.getState();
  const message = host.optimistic.of(item);
  host.settleCurrent();
  host.store.setState({ sending: item });
  host.compose();
  try {
    const started = await host.run.start({
      ...host.runInput,
      runId: item.runId,
      ...(threadId ? { threadId } : {}),
      token,
      ...(item.resume
        ? { messages: [], resume: item.resume }
        : { messages: [{ id: message.id, role: 'user', content: userContent(item) }] }),
      ...branchInput(item),
    });
    const outbox = outboxWithout(host, item.runId);
    const { pending: _p, ...accepted } = message;
    host.optimistic.delete(item.runId);
    host.retries.succeeded();
    host.run.noteRetry(null);
    host.store.setState({
      threadId: started.threadId,
      token: started.token ?? token,
      outbox,
      sending: null,
      prompt: promptless(item) ? null : { runId: started.runId, message: accepted },
      regenerated: regeneratedOf(item, started.runId),
    });
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
  } catch (error) {
    const typed = toResumable(error);
    if (typed.code === 'interrupt_answered' && typed.runId && threadId) {
      // Another tab or device answered first: nothing for the user to fix. Drop this
      // answer and follow the run that answered.
      host.store.setState({ sending: null, outbox: outboxWithout(host, item.runId) });
      await host.persist();
      await host.followRun(typed.runId, threadId, token, null);
      return true;
    }
    // One decision table (ERROR_ACTIONS) and one retry policy: a retryable failure stays
    // queued (and goes out at once on `online`); anything else, or too many answers
    // without progress, waits for the user's retry() with its error shown.
    const verdict = host.retries.judge(typed);
    if (!verdict.retry && item.resume && verdict.error === typed) {
      // Answers the server itself refused (its error's action, not the policy's count of
      // transient failures: `no_progress` keeps them queued for retry(), like a prompt's
      // text) end (`refused-continuation.ts`, a chunk: off first paint), never stay queued.
      // If it fails to load, they stay queued with the error shown, for retry().
      host.run.noteRetry(null);
      const refused = await import('../interrupts/refused-continuation.js').catch(() => null);
      if (refused) return refused.endContinuation(host, item, typed);
    }
    if (verdict.retry && typed.code === 'run_in_progress' && typed.runId && threadId) {
      // The thread already runs a reply (another tab or device): follow it. The prompt
      // goes out, once (its runId is fixed), when that run ends: the drain on its
      // terminal event, or the retry below when it ended already.
      await host.followRun(typed.runId, threadId, token, null);
    }
    const stop = verdict.retry ? null : verdict.error;
    const outbox = withItemError(host.store.getState().outbox, item.runId, stop);
    host.store.setState({ sending: null, error: stop, outbox });
    host.compose();
    await host.persist();
    // Retried by the policy whatever the `online` signal says (a server down, a browser
    // online); the wait is shown as the run's `connection.nextRetryAt`.
    const delay = verdict.retry ? host.retries.schedule(typed, host.retryLater) : null;
    host.run.noteRetry(delay === null ? null : host.run.env.now() + delay);
    return false;
  }
}

function outboxWithout(host: OutboxHost, runId: string): OutboxItem[] {
  return host.store.getState().outbox.filter((o) => o.runId !== runId);
}

/** An outbox item that shows no prompt: an answer to interrupts, or a regenerate. */
function promptless(item: OutboxItem): boolean {
  return item.resume !== undefined || item.kind === 'regenerate';
}
