import { ResumableError } from '@resumable/protocol';
import type { ChatMessage, ChatState, OutboxItem, Regenerated } from '../conversation/state.js';
import { isShownMessage } from '../conversation/state.js';
import { isAttachment } from '../net/attachment.js';
import type { RecordRead } from '../records/run-record.js';
import { loadRecord } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import type { RunSession } from '../run/run-session.js';

/**
 * What a chat keeps in storage besides its run's record (`chat:<key>`): the thread, its
 * capability, the outbox, the prompt of the latest run and the branch shown — parsed
 * defensively, and a stored outbox checked before any of it goes out.
 */

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

export const chatRecordKey = (key: string) => `chat:${key}`;

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

/** What a read record restores (`token`: the one the app gave, which wins). */
export function chatStateOf(record: ChatRecord, token: string | undefined): Partial<ChatState> {
  const { threadId, outbox, prompt, branch, regenerated = null } = record;
  const pinned = branch ? { through: branch.through, history: branch.history } : {};
  return { threadId, token: token ?? record.token, outbox, prompt, regenerated, ...pinned };
}

/**
 * The chat state a read record restores: the record's thread, outbox, prompt and branch
 * when it is of the thread asked for (`threadId`), the app's `token` winning.
 */
export function restoredChat(
  record: StoredRecords['chat'],
  options: { threadId?: string | undefined; token?: string | undefined },
): Partial<ChatState> | null {
  if (record === null || record instanceof ResumableError) return null;
  return (options.threadId ?? record.threadId) === record.threadId
    ? chatStateOf(record, options.token)
    : null;
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

/** The records a reload finds: the chat's and its run's, as read (problems included). */
export interface StoredRecords {
  chat: ChatRecord | ResumableError | null;
  run: RecordRead;
}

/** Reads both records of `key` at once; never rejects (a failed read is no record). */
export async function readStoredRecords(
  storage: RecordStorage,
  key: string,
): Promise<StoredRecords> {
  const [chat, run] = await Promise.all([loadChatRecord(storage, key), loadRecord(storage, key)]);
  return { chat, run };
}

/** What checking a chat's stored record needs of its `ChatSession`. */
export interface RecordChecker {
  readonly run: Pick<RunSession, 'storage' | 'env'>;
  readonly options: { key: string; onWarning?: ((warning: ResumableError) => void) | undefined };
}
