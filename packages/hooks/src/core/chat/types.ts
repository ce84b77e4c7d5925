import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import type { ChatInterrupt } from '../interrupts/chat-interrupts.js';

/**
 * The public shapes shared by the hooks and the UI. The UI renders only from these, so a
 * custom UI (or another framework's adapter) can be driven by the same core.
 */

/** Where a session's connection is. `offline` while `navigator.onLine` is false. */
export type ConnectionPhase =
  | 'idle'
  | 'connecting'
  | 'streaming'
  | 'reconnecting'
  | 'offline'
  | 'finished'
  | 'cancelled'
  | 'error';

/** Facts about the connection, for status lines and inspectors. */
export interface ConnectionInfo {
  phase: ConnectionPhase;
  /** Reconnect attempts since the last stable connection (0 when healthy). */
  attempt: number;
  /** When the next reconnect attempt is scheduled (epoch ms), or null. */
  nextRetryAt: number | null;
  /** The last transport error (network, stall, gap, HTTP error), or null. */
  lastError: ResumableError | null;
  /** Events applied from the first read after the last (re)connect: "caught up n events". */
  caughtUp: number;
  /** How many times this session resumed after a drop or reload. */
  resumes: number;
  /**
   * The resume point (highest offset applied). Read live: a batch that only moves it keeps
   * the same `connection` object, so status components do not re-render per batch; select
   * `s.connection.offset` itself to re-render on it.
   */
  offset: number;
  /** `memory` when IndexedDB is not available and records do not survive a reload. */
  persistence: 'indexeddb' | 'memory';
  /**
   * True in a follower tab: another tab of this origin holds the conversation's streams and
   * passes their events on ("live via another tab"). Absent or false: this tab's own.
   */
  viaTab?: boolean;
}

/** A prompt waiting in the outbox (typed offline, or whose POST has not been answered). */
export interface OutboxItem {
  /** The client-chosen run id the prompt will start (idempotent retries). */
  runId: string;
  text: string;
  createdAt: number;
  /** Id of the optimistic user message (kept when the server echoes it back). */
  messageId?: string;
  /**
   * A continuation answering interrupts instead of a prompt (`text` is empty): its POST
   * carries `resume` and no message.
   */
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[];
  /** Set when the server refused the prompt (not a network error): `retry()` re-sends it. */
  error?: { code: string; message: string };
  /** Files already uploaded to the thread that the prompt carries (persisted with it). */
  attachments?: readonly Attachment[];
  /** `regenerate`: no prompt, a new answer to `parentMessageId`. Absent: a prompt (send or edit). */
  kind?: 'regenerate';
  /**
   * The message the run hangs under (`POST /runs` `parentMessageId`; null = the root). Absent:
   * after the thread's current leaf, as before branches.
   */
  parentMessageId?: string | null;
}

/** Where a message sits among the other answers (or prompts) to the same parent. */
export interface BranchInfo {
  /** 0-based position among its siblings, in creation order. */
  index: number;
  count: number;
  /** Every sibling's id (this message's too), in creation order. */
  siblingIds: readonly string[];
}

/** A file uploaded to the thread (`POST /threads/{id}/files`), as the server described it. */
export interface Attachment {
  fileId: string;
  /** Where the server serves it (needs the thread's token: header, or `?token=`). */
  url: string;
  /** The type the server sniffed and accepted. */
  mimeType: string;
  size: number;
  name: string;
}

/** What `send` takes besides the text. */
export interface SendOptions {
  /** Uploaded files the prompt references (AG-UI image / document parts). @default [] */
  attachments?: readonly Attachment[];
}

/** One upload: its file name, progress callback and abort signal. */
export interface UploadOptions {
  /** The file name the server keeps (a `File`'s own name by default). */
  name?: string;
  /** Bytes sent so far of `total`, as the browser reports them. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

/** A message as the UI shows it: the folded AG-UI message, plus an optimistic marker. */
export type ChatMessage = RunMessage & {
  /** A user message shown before the server has it (sending or queued offline). */
  pending?: 'sending' | 'queued';
  /** The message this one follows in the thread's tree (null: the root). */
  parentId?: string | null;
  /** Set when the message has siblings (regenerated answers, edited prompts): ‹ n / m ›. */
  branch?: BranchInfo;
};

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
  threadId: string | null;
  runId: string | null;
  /** History pages, then the active run's messages, then the outbox's optimistic prompts. */
  messages: readonly ChatMessage[];
  status: RunStatus;
  connection: ConnectionInfo;
  error: ResumableError | null;
  /** True while a reply streams: the composer shows Stop instead of Send. */
  isStreaming: boolean;
  outbox: readonly OutboxItem[];
  hasOlder: boolean;
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
