import type { RunMessage, RunStatus } from '@resumable/protocol';
import { isTerminalStatus, ResumableError } from '@resumable/protocol';
import type { RunSessionOptions } from './options.js';
import type { ChatMessage, OutboxItem } from './types.js';

/** The chat's options, state, persisted record and tab message: data, no behaviour. */

export interface ChatSessionOptions extends RunSessionOptions {
  /** Join this conversation (history, and a run still going). Else a new thread on first send. */
  threadId?: string;
  /** The thread's token, when this device did not start the thread (second device). */
  token?: string;
  /** Messages per history page. @default 50 */
  pageSize?: number;
  /**
   * Prompts the outbox holds at most (offline, or behind a streaming reply); `send()`
   * past it rejects with `too_many_requests`. @default 50
   */
  maxOutbox?: number;
  /** Extra `RunAgentInput` fields sent with every prompt (tools, context, forwardedProps…). */
  runInput?: Record<string, unknown>;
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
   * A visible follower tab that heard nothing from the leader this long takes over (a hung
   * leader; a closed, crashed or frozen one lets go of its lock at once). @default 5000
   */
  leaderStaleMs?: number;
}

/** What a chat keeps besides the run record: the thread, its capability, the outbox. */
export interface ChatRecord {
  v: 1;
  key: string;
  threadId: string | null;
  token: string | null;
  outbox: OutboxItem[];
  /** The prompt of the latest run (the server's run log may not echo it back). */
  prompt: { runId: string; message: ChatMessage } | null;
}

/** What a tab tells the others when it started a run on a key. */
export interface TabRunMessage {
  type: 'run';
  key: string;
  runId: string;
  threadId: string;
  token: string | null;
  prompt: ChatMessage;
}

export const DEFAULT_MAX_OUTBOX = 50;

export const chatRecordKey = (key: string) => `chat:${key}`;

export interface ChatState {
  threadId: string | null;
  token: string | null;
  /** Older pages from `GET /threads/:id/messages`, oldest first. */
  history: readonly ChatMessage[];
  /** Runs finished on this page before the current one (prompt and reply). */
  settled: readonly ChatMessage[];
  /** The current run's prompt. */
  prompt: { runId: string; message: ChatMessage } | null;
  /** The prompt whose POST is in flight. */
  sending: OutboxItem | null;
  outbox: readonly OutboxItem[];
  nextBefore: string | null;
  hasOlder: boolean;
  isLoadingOlder: boolean;
  error: ResumableError | null;
  /** History, settled runs, the current run and the outbox, deduplicated by id. */
  messages: readonly ChatMessage[];
  /**
   * True once both persisted records (the chat's and its run's) are read and composed: the
   * first state with it already holds the stored prompt and reply together.
   */
  hydrated: boolean;
}

export function parseChatRecord(value: unknown, key: string): ChatRecord | ResumableError | null {
  if (value === undefined || value === null) return null;
  const r = value as Partial<ChatRecord>;
  if (typeof r !== 'object' || r.v !== 1 || r.key !== key || !Array.isArray(r.outbox)) {
    return new ResumableError('corrupt_record', `persisted chat "${key}" discarded`);
  }
  const outbox = r.outbox.filter(
    (item): item is OutboxItem =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.runId === 'string' &&
      typeof item.text === 'string',
  );
  return {
    v: 1,
    key,
    threadId: typeof r.threadId === 'string' ? r.threadId : null,
    token: typeof r.token === 'string' ? r.token : null,
    outbox,
    prompt: r.prompt && typeof r.prompt.runId === 'string' ? r.prompt : null,
  };
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
    hydrated: false,
  };
}

/**
 * One list for the transcript: history, settled runs, the current run (with its prompt
 * when the run log does not echo it) and the outbox's optimistic prompts, deduplicated by
 * id. Message objects are passed through untouched (a settled reply keeps its identity
 * while the next one streams).
 */
export function composeMessages(
  chat: Pick<ChatState, 'history' | 'settled' | 'prompt' | 'sending' | 'outbox'>,
  runMessages: readonly RunMessage[],
  runId: string | null,
  optimistic: (item: OutboxItem, pending: 'sending' | 'queued') => ChatMessage,
): ChatMessage[] {
  const tail: ChatMessage[] = [];
  const promptInRun = chat.prompt && chat.prompt.runId === runId ? chat.prompt.message : null;
  if (promptInRun && !runMessages.some((m) => m.id === promptInRun.id)) tail.push(promptInRun);
  tail.push(...runMessages);
  for (const item of chat.outbox) {
    tail.push(optimistic(item, chat.sending?.runId === item.runId ? 'sending' : 'queued'));
  }
  const tailIds = new Set(tail.map((m) => m.id));
  const seen = new Set<string>();
  const messages: ChatMessage[] = [];
  for (const m of [...chat.history, ...chat.settled]) {
    if (tailIds.has(m.id) || seen.has(m.id)) continue;
    seen.add(m.id);
    messages.push(m);
  }
  for (const m of tail) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    messages.push(m);
  }
  return messages;
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
): ChatMessage[] {
  const done: ChatMessage[] = [];
  if (prompt && (run.runId === null || run.runId === prompt.runId)) done.push(prompt.message);
  if (run.runId === null) return done;
  const cut = run.stopped && !isTerminalStatus(run.status);
  for (const m of run.messages) {
    if (cut && m.streaming) {
      const { streaming: _open, ...rest } = m;
      done.push({ ...rest, ended: 'stopped' } as ChatMessage);
    } else {
      done.push(m);
    }
  }
  return done;
}

/** What `chat:<key>` holds for a chat state. */
export function chatRecordOf(key: string, state: ChatState): ChatRecord {
  const { threadId, token, outbox, prompt } = state;
  return { v: 1, key, threadId, token, outbox: [...outbox], prompt };
}

/** Reads `chat:<key>`: the record, null, or a `corrupt_record` error (a failed read is null). */
export async function loadChatRecord(
  storage: { get(key: string): Promise<unknown> },
  key: string,
): Promise<ChatRecord | ResumableError | null> {
  let raw: unknown;
  try {
    raw = await storage.get(chatRecordKey(key));
  } catch {
    raw = undefined;
  }
  return parseChatRecord(raw, key);
}

/** Another tab's "I started a run on this key" message, checked; null for anything else. */
export function parseTabMessage(
  message: unknown,
  key: string,
): (Omit<TabRunMessage, 'token' | 'prompt'> & Partial<TabRunMessage>) | null {
  const m = message as Partial<TabRunMessage> | null;
  if (m?.type !== 'run' || m.key !== key || typeof m.runId !== 'string') return null;
  if (typeof m.threadId !== 'string') return null;
  return {
    type: 'run',
    key,
    runId: m.runId,
    threadId: m.threadId,
    ...(typeof m.token === 'string' ? { token: m.token } : {}),
    ...(m.prompt ? { prompt: m.prompt } : {}),
  };
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

/** The user message an outbox item shows before the server has it. */
export function optimisticMessage(item: OutboxItem): ChatMessage {
  const id = item.messageId ?? `user-${item.runId}`;
  return { id, role: 'user', content: item.text, pending: 'queued' } as ChatMessage;
}

/** The outbox with item `runId` marked refused by `error` (unchanged when null). */
export function withItemError(
  outbox: readonly OutboxItem[],
  runId: string,
  error: { code: string; message: string } | null,
): OutboxItem[] {
  if (error === null) return [...outbox];
  const { code, message } = error;
  return outbox.map((o) => (o.runId === runId ? { ...o, error: { code, message } } : o));
}
