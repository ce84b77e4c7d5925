import type { RunMessage, RunStatus } from '@resumable/protocol';
import { isTerminalStatus, ResumableError } from '@resumable/protocol';
import { toResumable } from '../base/errors.js';
import type { Attachment, ChatMessage, OutboxItem } from '../chat/types.js';
import type { RunSessionOptions } from '../run/options.js';

export { composeMessages } from '../chat/compose.js';

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
   * A follower whose live run had no new event this long while the server's went past what
   * the leader delivered (one `GET /runs/{id}` tells) takes over: a hung leader, or another
   * tab's made-up heartbeats, cannot hold the chat. Silence alone takes over only after 90 s
   * (a hidden leader's throttled timers tick about once a minute). A closed, crashed or
   * frozen leader lets go of its lock at once. @default 5000
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
  /** The branch shown when it is not the newest, with its page, so a reload shows it at once. */
  branch?: { through: string; history: ChatMessage[] };
  /** The latest run regenerates the answer to this prompt. */
  regenerated?: Regenerated | null;
}

/** The current run answers `parentId` again (a regenerate: it has no prompt of its own). */
export interface Regenerated {
  runId: string;
  parentId: string;
}

/** What a tab tells the others when it started a run on a key. */
export interface TabRunMessage {
  type: 'run';
  key: string;
  runId: string;
  threadId: string;
  token: string | null;
  /** Absent for a regenerate or a continuation answering interrupts (they have no prompt). */
  prompt?: ChatMessage;
  /** A regenerate: the prompt its answer hangs under. */
  regenerated?: Regenerated | null;
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

export function parseChatRecord(value: unknown, key: string): ChatRecord | ResumableError | null {
  if (value === undefined || value === null) return null;
  const r = value as Partial<ChatRecord>;
  if (typeof r !== 'object' || r.v !== 1 || r.key !== key || !Array.isArray(r.outbox)) {
    return new ResumableError('corrupt_record', `persisted chat "${key}" discarded`);
  }
  const outbox = r.outbox
    .filter(
      (item): item is OutboxItem =>
        typeof item === 'object' &&
        item !== null &&
        typeof item.text === 'string' &&
        (item.kind === undefined || item.kind === 'regenerate') &&
        (item.parentMessageId === undefined ||
          item.parentMessageId === null ||
          typeof item.parentMessageId === 'string'),
    )
    // A bad message id, file or error is dropped, not the prompt: its text still goes.
    // A runId that is no string is kept as '' here (the text is what matters): the chat
    // gives it a new one where it loads the record, before it can go out (`checked-record.ts`).
    .map(({ messageId, attachments, error, ...item }) => {
      const files = Array.isArray(attachments) ? attachments.filter(isAttachment) : [];
      return {
        ...item,
        runId: typeof item.runId === 'string' ? item.runId : '',
        ...(typeof messageId === 'string' ? { messageId } : {}),
        ...(files.length > 0 ? { attachments: files } : {}),
        ...(typeof error?.code === 'string' && typeof error.message === 'string'
          ? { error: { code: error.code, message: error.message } }
          : {}),
      };
    });
  return {
    v: 1,
    key,
    threadId: typeof r.threadId === 'string' ? r.threadId : null,
    token: typeof r.token === 'string' ? r.token : null,
    outbox,
    prompt: isPrompt(r.prompt) ? r.prompt : null,
    ...branchRecordOf(r),
  };
}

/** An uploaded file as the server named it: string ids, URL and type, a size in bytes. */
export function isAttachment(value: unknown): value is Attachment {
  const b = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return (
    typeof b.fileId === 'string' &&
    b.fileId !== '' &&
    typeof b.url === 'string' &&
    b.url !== '' &&
    typeof b.mimeType === 'string' &&
    typeof b.name === 'string' &&
    Number.isSafeInteger(b.size) &&
    (b.size as number) >= 0
  );
}

/** What the transcript needs of a message (stored or from a history page): a string id and role. */
export function isShownMessage(m: unknown): m is { id: string; role: string } {
  const { id, role } = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
  return typeof id === 'string' && typeof role === 'string';
}

/** A stored prompt the transcript can show: its run, and a message it can show. */
function isPrompt(p: ChatRecord['prompt'] | undefined): p is NonNullable<ChatRecord['prompt']> {
  return typeof p?.runId === 'string' && isShownMessage(p.message);
}

/** The record's branch fields, checked (a bad one is dropped: the newest branch shows). */
function branchRecordOf(r: Partial<ChatRecord>): Pick<ChatRecord, 'branch' | 'regenerated'> {
  const out: Pick<ChatRecord, 'branch' | 'regenerated'> = {};
  const b = r.branch;
  if (b && typeof b.through === 'string' && Array.isArray(b.history)) {
    const history = b.history.filter(
      (m) => typeof m === 'object' && m !== null && typeof m.id === 'string',
    );
    out.branch = { through: b.through, history };
  }
  const g = r.regenerated;
  if (g && typeof g.runId === 'string' && typeof g.parentId === 'string') {
    out.regenerated = { runId: g.runId, parentId: g.parentId };
  }
  return out;
}

/** A pinned branch's page kept in the record at most (the newest of it). */
const MAX_RECORDED_HISTORY = 100;

/** What a read record restores (`token`: the one the app gave, which wins). */
export function chatStateOf(record: ChatRecord, token: string | undefined): Partial<ChatState> {
  const { threadId, outbox, prompt, branch, regenerated = null } = record;
  const pinned = branch ? { through: branch.through, history: branch.history } : {};
  return { threadId, token: token ?? record.token, outbox, prompt, regenerated, ...pinned };
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

/** What `chat:<key>` holds for a chat state. */
export function chatRecordOf(key: string, state: ChatState): ChatRecord {
  const { threadId, token, outbox, prompt, through, regenerated, history } = state;
  return {
    v: 1,
    key,
    threadId,
    token,
    outbox: [...outbox],
    prompt,
    ...(through === null
      ? {}
      : { branch: { through, history: history.slice(-MAX_RECORDED_HISTORY) } }),
    ...(regenerated === null ? {} : { regenerated }),
  };
}

/** Writes `chat:<key>` for `state`; a failed write is a warning (the page keeps going). */
export async function persistChatRecord(
  storage: { update(key: string, updater: (old: unknown) => unknown): Promise<void> },
  options: { key: string; onWarning?: ((warning: ResumableError) => void) | undefined },
  state: ChatState,
): Promise<void> {
  try {
    await storage.update(chatRecordKey(options.key), () => chatRecordOf(options.key, state));
  } catch (error) {
    options.onWarning?.(toResumable(error));
  }
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

const isTabId = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= 256;

/** Another tab's "I started a run on this key" message, checked; null for anything else. */
export function parseTabMessage(
  message: unknown,
  key: string,
): (Omit<TabRunMessage, 'token' | 'prompt'> & Partial<TabRunMessage>) | null {
  const m = message as Partial<TabRunMessage> | null;
  if (m?.type !== 'run' || m.key !== key || !isTabId(m.runId) || !isTabId(m.threadId)) return null;
  // A prompt is a user message with an id (another version, or garbage, may post anything).
  const p = m.prompt as Partial<ChatMessage> | null | undefined;
  const prompt = typeof p === 'object' && p !== null && isTabId(p.id) && p.role === 'user';
  return {
    type: 'run',
    key,
    runId: m.runId,
    threadId: m.threadId,
    ...(typeof m.token === 'string' ? { token: m.token } : {}),
    ...(prompt ? { prompt: m.prompt } : {}),
    ...(m.regenerated?.runId === m.runId && isTabId(m.regenerated.parentId)
      ? { regenerated: { runId: m.runId, parentId: m.regenerated.parentId } }
      : {}),
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
  const parent = item.parentMessageId === undefined ? {} : { parentId: item.parentMessageId };
  return { id, role: 'user', content: item.text, pending: 'queued', ...parent } as ChatMessage;
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
