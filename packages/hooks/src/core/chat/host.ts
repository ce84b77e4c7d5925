import type { ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { HeldReads } from '../base/held-reads.js';
import type { ChatState, OutboxItem } from '../conversation/state.js';
import type { RunSession } from '../run/run-session.js';
import type { ChatSessionOptions } from './options.js';

/**
 * The chat as the features loaded on demand see it (`branches/`, `interrupts/`, `uploads/`):
 * they depend on this small interface, and `chat/` on none of them. `ChatSession`
 * implements it; the features' code comes to the chat through `ChatFeatures`, which the
 * client that makes the chat supplies (`client/resumable-client.ts`).
 */
export interface ChatHost {
  readonly store: StoreApi<ChatState>;
  readonly run: RunSession;
  readonly options: ChatSessionOptions;
  /** History, active-run and new-thread reads: aborted when the chat is let go. */
  readonly reads: HeldReads;
  /** Whether a message is known here, on any branch (`BranchView.has`). */
  readonly branches: { has(id: string): boolean };
  getState(): ChatState;
  /** Holds the chat (and its run session); returns the matching `release`. */
  retain(): () => void;
  /** Queues an outbox item: persisted, sent when it can, once. Resolves with its run id. */
  enqueue(item: OutboxItem): Promise<string>;
  /** Reads a history page (`before` null: the newest), of branch `switchTo` when given. */
  loadPage(before: string | null, switchTo?: string): Promise<void>;
  /** Derives the transcript again from the chat's state. */
  compose(): void;
  /** Writes the chat record. */
  persist(): Promise<void>;
  /** Makes a thread created for a first upload this chat's own (persisted). */
  adoptThread(threadId: string, token: string): Promise<void>;
}

/** Regenerate, edit and switch branches (`branches/branch-actions.ts`). */
export interface BranchActions {
  regenerate(chat: ChatHost, messageId?: string): Promise<string>;
  edit(chat: ChatHost, messageId: string, content: string): Promise<string>;
  switchBranch(chat: ChatHost, messageId: string, index: number): Promise<void>;
}

/** What ends a continuation the server refused for good (`interrupts/refused-continuation.ts`). */
export interface ContinuationRefusal {
  /**
   * The answers continuation `runId` carried end: the chat's interrupt session hears it, and
   * they leave the interrupts' record. Resolves once that record is written; a failed write
   * is a warning through `warn`.
   */
  continuationRefused(
    chat: Pick<ChatHost, 'store' | 'run'>,
    runId: string,
    error: ResumableError,
    warn: (warning: ResumableError) => void,
  ): Promise<void>;
}

/** The features' code, loaded on first use (each a chunk of its own). */
export interface ChatFeatures {
  branchActions(): Promise<BranchActions>;
  continuationRefusal(): Promise<ContinuationRefusal>;
}
