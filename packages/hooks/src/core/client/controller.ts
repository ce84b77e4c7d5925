import type { ResumableError, RunStatus } from '@resumable/protocol';
import type { SendOptions } from '../chat/options.js';
import type { ChatMessage, OutboxItem } from '../conversation/state.js';
import type { ChatInterrupt } from '../interrupts/chat-interrupts.js';
import type { Attachment } from '../net/attachment.js';
import type { UploadOptions } from '../net/uploads.js';
import type { ConnectionInfo } from '../run/connection.js';

/**
 * What a chat UI renders from: `useResumableChat` returns a `ChatController`, and
 * `<ResumableChat>` is built only on it, so a custom UI (or another framework's adapter) can
 * be driven by the same core.
 */

/** Human in the loop: what `useResumableChat` adds for interrupts (`interrupt-session.ts`). */
export interface InterruptControls {
  /** The thread's interrupts (approvals, questions, browser tools), oldest first. */
  interrupts: readonly ChatInterrupt[];
  /**
   * Answers an open interrupt: `{approved: true}` / `{approved: false, reason?}`, a
   * question's `{answer}`, a browser tool's `{result}`. Kept (persisted) until every open
   * interrupt of the run is answered, then sent once as one continuation. Rejects with
   * `bad_request` at once for an answer the server would refuse (over 16 KiB of JSON…).
   */
  resolve(id: string, payload: unknown): Promise<void>;
  /** Answers an open interrupt with `cancelled`. */
  cancel(id: string): Promise<void>;
  /** Runs again a browser tool a reload cut short (the user chose to). */
  rerunTool(id: string): Promise<void>;
}

/** What `useResumableChat` returns; `<ResumableChat>` is built only on this. */
export interface ChatController extends Partial<InterruptControls> {
  /** The conversation's thread, once the server made it (null: a new conversation). */
  threadId: string | null;
  /** The run followed now (the last one, when none streams). */
  runId: string | null;
  /** History pages, then the active run's messages, then the outbox's optimistic prompts. */
  messages: readonly ChatMessage[];
  /** The followed run's status. */
  status: RunStatus;
  /** Where the connection is (phase, retries, resume point), for a status line. */
  connection: ConnectionInfo;
  /** What stopped the chat or its run (typed: `error.code`), or null. */
  error: ResumableError | null;
  /** True while a reply streams: the composer shows Stop instead of Send. */
  isStreaming: boolean;
  /** Prompts not yet taken by the server (offline, queued behind a reply, or refused). */
  outbox: readonly OutboxItem[];
  /** Older history pages exist (`loadOlder`). */
  hasOlder: boolean;
  /** A history page is being read. */
  isLoadingOlder: boolean;
  /** Sends a prompt; `options.attachments` are files `upload` returned. */
  send(text: string, options?: SendOptions): Promise<void>;
  /**
   * Uploads a file to the thread (creating the thread first when there is none yet) and
   * resolves with what the prompt references. Absent when the controller cannot upload.
   */
  upload?: (file: Blob, options?: UploadOptions) => Promise<Attachment>;
  /** The thread's capability, for `<img src="…?token=">` of its files. @default null */
  token?: string | null;
  /** Cancels the run on the server (never a mere disconnect). */
  stop(): Promise<void>;
  /** Reconnects now after an error, or re-sends a failed prompt. */
  retry(): void;
  /** Reads the history page before the oldest shown. */
  loadOlder(): Promise<void>;
  /** Starts a new conversation (a new thread on the next send). */
  reset(): void;
  /**
   * A new answer to the prompt of `messageId` (default: the last answer) beside the old one;
   * it becomes the branch shown. Queued like `send` while offline or while a reply streams.
   */
  regenerate?(messageId?: string): Promise<void>;
  /** The prompt `messageId` asked again as `content`, on a new branch beside it. */
  edit?(messageId: string, content: string): Promise<void>;
  /** Shows sibling `index` (0-based) of `messageId` and its newest continuation. */
  switchBranch?(messageId: string, index: number): Promise<void>;
}
