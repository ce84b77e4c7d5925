import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import { ResumableError as TypedError } from '@resumable/protocol';
import { BranchView } from '../chat/branch-view.js';
import { OptimisticMessages } from '../chat/optimistic.js';
import type { ChatMessage } from '../chat/types.js';
import type { ChatRecord, ChatState } from '../conversation/state.js';
import { chatStateOf, emptyChatState, isBusy, loadChatRecord } from '../conversation/state.js';
import type { RecordRead } from '../records/run-record.js';
import { loadRecord, runStateOfRecord } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import { runErrorOf } from '../run/connection.js';

/**
 * What a reload shows before the engine (`ChatSession`, `RunSession`, the transport) has
 * loaded: the persisted records, read once and composed exactly as the engine composes
 * them (`BranchView`, `composeMessages`). The same read is handed to the engine
 * (`ChatSession.preload`), so its first hydrated state holds the same messages.
 */

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

/** The run as its record shows it (what the hooks return of it before the engine). */
export interface StoredRun {
  runId: string | null;
  threadId: string | null;
  messages: readonly RunMessage[];
  status: RunStatus;
  stopped: boolean;
  error: ResumableError | null;
}

const NO_RUN: StoredRun = {
  runId: null,
  threadId: null,
  messages: [],
  status: 'idle',
  stopped: false,
  error: null,
};

/** The run a record restores (`RunSession.restore` folds it the same way). */
export function storedRunOf(read: RecordRead): StoredRun {
  const r = read.record;
  if (!r) return NO_RUN;
  try {
    const run = runStateOfRecord(r);
    const stopped = r.stopped === true;
    return {
      runId: r.runId,
      threadId: r.threadId,
      messages: run.messages,
      status: run.status,
      stopped,
      error: runErrorOf(run),
    };
  } catch {
    return NO_RUN; // the engine discards it as corrupt
  }
}

/**
 * The chat state a read record restores: the record's thread, outbox, prompt and branch
 * when it is of the thread asked for (`threadId`), the app's `token` winning.
 */
export function restoredChat(
  record: StoredRecords['chat'],
  options: { threadId?: string | undefined; token?: string | undefined },
): Partial<ChatState> | null {
  if (record === null || record instanceof TypedError) return null;
  return (options.threadId ?? record.threadId) === record.threadId
    ? chatStateOf(record, options.token)
    : null;
}

/** What the hooks show of a conversation before the engine has loaded. */
export interface StoredChat {
  chat: ChatState;
  run: StoredRun;
  messages: readonly ChatMessage[];
  /** A reply is streaming: the engine resumes it (the UI shows Stop). */
  streaming: boolean;
}

export function storedChatOf(
  records: StoredRecords,
  options: { threadId?: string | undefined; token?: string | undefined },
): StoredChat {
  const run = storedRunOf(records.run);
  const chat: ChatState = {
    ...emptyChatState(options.threadId ?? null, options.token ?? null),
    ...restoredChat(records.chat, options),
    hydrated: true,
  };
  if (chat.threadId === null && run.threadId) chat.threadId = run.threadId;
  const messages = new BranchView().derive(new OptimisticMessages(), chat, run) ?? [];
  return { chat, run, messages, streaming: isBusy(run) };
}
