import type { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { RunSession } from '../run/run-session.js';
import type { ChatHeardRun, ChatState, ConversationOptions } from './state.js';

/** What the conversation link may ask of its chat (the chat's own moves, bound). */
export interface ConversationHost {
  options: ConversationOptions;
  store: StoreApi<ChatState>;
  run: RunSession;
  /**
   * A run this chat heard of (the thread stream, another tab's `lead` or thread batch), with
   * what it shows before its snapshot (its prompt, where it hangs): the conversation
   * machine decides whether it becomes the current one.
   */
  heard(run: ChatHeardRun): void;
  /** This tab reads the network itself now (`solo`, `leader`), or another tab does. */
  role(owns: boolean): void;
  /** The run the conversation shows last (its machine's), null before any. */
  current(): string | null;
  /** Another tab's batch of run `runId`'s events: `fold` folds it, if the machine says so. */
  batch(runId: string, fold: () => void): void;
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
