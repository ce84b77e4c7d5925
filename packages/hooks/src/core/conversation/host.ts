import type { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { RunSession } from '../run/run-session.js';
import type { ChatState, ConversationOptions } from './state.js';

/** What the conversation link may ask of its chat (the chat's own moves, bound). */
export interface ConversationHost {
  options: ConversationOptions;
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
