import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import { isTerminalStatus } from '@resumable/protocol';
import type { Attachment } from '../net/attachment.js';
import type { RunSessionOptions } from '../run/options.js';
import type { HeardRun } from './machine.js';

/**
 * What a conversation shows, as data: its options, the messages and outbox items a chat
 * renders, and the state every part of the client reads (the chat, the thread follower, the
 * first paint). No behaviour beyond deriving from it.
 */

/** The options of a conversation (the chat's, less its outbox's). */
export interface ConversationOptions extends RunSessionOptions {
  /** Join this conversation (history, and a run still going). Else a new thread on first send. */
  threadId?: string;
  /** The thread's token, when this device did not start the thread (second device). */
  token?: string;
  /** Messages per history page. @default 50 */
  pageSize?: number;
  /**
   * Follow the thread's event stream (`GET /threads/{id}/events`): a run started elsewhere
   * (another device, the server) appears live. @default true
   */
  followThread?: boolean;
  /**
   * Tabs of this origin share one connection per conversation: a leader elected with Web
   * Locks holds the streams and passes their events on over BroadcastChannel. Without Web
   * Locks or BroadcastChannel every tab keeps its own. @default true
   */
  shareTabs?: boolean;
  /**
   * A follower whose live run had no new event this long while the server's went past what
   * the leader delivered (one `GET /runs/{id}` tells) takes over: a hung leader, or another
   * tab's made-up heartbeats, cannot hold the chat. Silence alone takes over only after 90 s
   * (a hidden leader's throttled timers tick about once a minute). A closed, crashed or
   * frozen leader lets go of its lock at once. @default 5000
   */
  leaderStaleMs?: number;
}

/** A prompt waiting in the outbox (typed offline, or whose POST has not been answered). */
export interface OutboxItem {
  /** The client-chosen run id the prompt will start (idempotent retries). */
  runId: string;
  /** The prompt's text ('' for a continuation that only answers interrupts). */
  text: string;
  /** When it was queued, epoch milliseconds. */
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
  /** Siblings in all (this message included). */
  count: number;
  /** Every sibling's id (this message's too), in creation order. */
  siblingIds: readonly string[];
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

/** What a chat shows of a run heard of before its snapshot is in: its prompt, where it hangs. */
export interface HeardShown {
  prompt?: ChatState['prompt'];
  regenerated?: ChatState['regenerated'];
}

/**
 * What a chat's conversation inputs carry (`machine.ts`): what it shows of a run heard of,
 * another tab's batch of events and a history page, each folded or shown when the machine
 * says so.
 */
export interface ChatPayloads {
  shown: HeardShown;
  batch: () => void;
  page: () => void;
}

/** A run a chat heard of (the thread stream, another tab, a read, a POST's 409). */
export type ChatHeardRun = HeardRun<ChatPayloads>;

/** The current run answers `parentId` again (a regenerate: it has no prompt of its own). */
export interface Regenerated {
  /** The regenerate's run. */
  runId: string;
  /** The prompt it answers again. */
  parentId: string;
}

/** A conversation as `ChatSession.store` holds it; `messages` is what to draw. */
export interface ChatState {
  /** The conversation's thread; null until its first prompt or upload makes one. */
  threadId: string | null;
  /** The thread's token (`Authorization: Bearer`); null without a thread. */
  token: string | null;
  /** Older pages from `GET /threads/:id/messages`, oldest first. */
  history: readonly ChatMessage[];
  /** Runs finished on this page before the current one (prompt and reply). */
  settled: readonly ChatMessage[];
  /** The current run's prompt. */
  prompt: { runId: string; message: ChatMessage } | null;
  /** The prompt whose POST is in flight. */
  sending: OutboxItem | null;
  /** Prompts waiting to be sent (offline, or behind a reply), in order. */
  outbox: readonly OutboxItem[];
  /** The cursor of the next older history page; null at the start. */
  nextBefore: string | null;
  /** Whether older history is there to load (`loadOlder`). */
  hasOlder: boolean;
  /** A history page is being read. */
  isLoadingOlder: boolean;
  /** What stopped the conversation (a refused prompt, a lost thread), or null. */
  error: ResumableError | null;
  /** History, settled runs, the current run and the outbox, deduplicated by id. */
  messages: readonly ChatMessage[];
  /**
   * The branch shown: the one through this message (`switchBranch`), or null for the
   * newest (where a new run goes). Persisted.
   */
  through: string | null;
  /** The current run is a regenerate of the answer to this prompt. Persisted. */
  regenerated: Regenerated | null;
  /**
   * True once both persisted records (the chat's and its run's) are read and composed: the
   * first state with it already holds the stored prompt and reply together.
   */
  hydrated: boolean;
}

/** What the transcript needs of a message (stored or from a history page): a string id and role. */
export function isShownMessage(m: unknown): m is { id: string; role: string } {
  const { id, role } = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  return typeof id === 'string' && typeof role === 'string';
}

/** A conversation with nothing loaded: the state at construction and after `reset()`. */
export function emptyChatState(threadId: string | null, token: string | null): ChatState {
  return {
    threadId,
    token,
    history: [],
    settled: [],
    prompt: null,
    sending: null,
    outbox: [],
    nextBefore: null,
    hasOlder: false,
    isLoadingOlder: false,
    error: null,
    messages: [],
    through: null,
    regenerated: null,
    hydrated: false,
  };
}

/**
 * The current run's prompt and reply as they go into `settled` when the next run starts.
 * A stopped run whose cancelled end has not arrived yet shows its open messages as
 * stopped rather than streaming forever.
 */
export function settledMessages(
  run: {
    runId: string | null;
    messages: readonly RunMessage[];
    stopped: boolean;
    status: RunStatus;
  },
  prompt: ChatState['prompt'],
  regenerated: Regenerated | null = null,
): ChatMessage[] {
  const done: ChatMessage[] = [];
  if (prompt && (run.runId === null || run.runId === prompt.runId)) done.push(prompt.message);
  if (run.runId === null) return done;
  const cut = run.stopped && !isTerminalStatus(run.status);
  for (const [i, m] of run.messages.entries()) {
    if (i === 0 && regenerated?.runId === run.runId) {
      // Settled, it keeps the parent the run was started under (it has no prompt before it).
      done.push({ ...m, parentId: regenerated.parentId } as ChatMessage);
    } else if (cut && m.streaming) {
      const { streaming: _open, ...rest } = m;
      done.push({ ...rest, ended: 'stopped' } as ChatMessage);
    } else {
      done.push(m);
    }
  }
  return done;
}

/**
 * The state update that moves the finished run's prompt and reply into `settled` before a
 * new run starts (null when there is nothing to move).
 */
export function settleCurrentRun(
  chat: ChatState,
  run: Parameters<typeof settledMessages>[0],
): Partial<ChatState> | null {
  const { prompt, settled, regenerated } = chat;
  const done = settledMessages(run, prompt, regenerated);
  if (done.length === 0 && prompt === null) return null;
  return { settled: [...settled, ...done], prompt: null, regenerated: null };
}

/** A reply is streaming (the next prompt waits): a run followed, not over, not stopped. */
export function isBusy(run: {
  runId: string | null;
  status: RunStatus;
  stopped: boolean;
  error: unknown;
}): boolean {
  return run.runId !== null && !isTerminalStatus(run.status) && !run.stopped && run.error === null;
}
