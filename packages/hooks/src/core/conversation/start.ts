import type { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { RunSession } from '../run/run-session.js';
import { toResumable } from '../run/run-session.js';
import type { ChatSessionOptions, ChatState } from './state.js';

/** What the conversation link may ask of its chat (the chat's own moves, bound). */
export interface ConversationHost {
  options: ChatSessionOptions;
  store: StoreApi<ChatState>;
  run: RunSession;
  /** Follows a run this chat did not start (settles the current one first). */
  follow(
    runId: string,
    threadId: string,
    token: string | null,
    prompt: ChatState['prompt'],
  ): Promise<void>;
  /**
   * Where a run started elsewhere hangs (`placementOf`: `run_started`'s `parentMessageId`):
   * shown at once.
   */
  place(patch: Partial<Pick<ChatState, 'prompt' | 'regenerated'>>): void;
  /** The thread was deleted (`history_changed` `deleted`): end the chat with its error. */
  deleted(): void;
  /** Reloads the newest history page. */
  reloadHistory(): Promise<void>;
  /** `GET /threads/{id}`: joins a run still going. */
  rejoin(threadId: string, token: string | null): Promise<void>;
  warn(error: ResumableError): void;
}

/** True when this chat's tabs elect a leader: opted in, with Web Locks (the channel is checked
 * when the link opens it: without one the tab goes on alone). */
export function sharesTabs(host: Pick<ConversationHost, 'options' | 'run'>): boolean {
  return host.options.shareTabs !== false && host.run.env.locks !== null;
}

/**
 * Starts following the conversation (its thread stream, and tab leadership where the
 * browser has it) for as long as the chat is held; returns the stop. The code lives behind a
 * dynamic `import()`: a page showing a persisted transcript does not load it first. While it
 * loads, a sharing tab opens no stream of its own (`pending`), so a tab that turns out to
 * follow never opened one.
 */
export function startConversation(host: ConversationHost): () => void {
  if (host.options.followThread === false && host.options.shareTabs === false) return () => {};
  const share = sharesTabs(host);
  if (share) host.run.shared.setRole('pending');
  let stopped = false;
  let close: (() => void) | null = null;
  import('./link.js')
    .then(({ linkConversation }) => {
      if (!stopped) close = linkConversation(host, share);
    })
    .catch((error) => {
      host.run.shared.setRole('solo');
      host.warn(toResumable(error));
    });
  return () => {
    stopped = true;
    close?.();
    host.run.shared.release();
  };
}
