import type { ResumableError, RunMessage, RunStatus } from '@resumable/protocol';
import { BranchView } from '../chat/branch-view.js';
import type { StoredRecords } from '../chat/chat-record.js';
import { restoredChat } from '../chat/chat-record.js';
import { OptimisticMessages } from '../chat/optimistic.js';
import type { ChatMessage, ChatState } from '../conversation/state.js';
import { emptyChatState, isBusy } from '../conversation/state.js';
import type { RecordRead } from '../records/run-record.js';
import { runStateOfRecord } from '../records/run-record.js';
import { runErrorOf } from '../run/connection.js';

/**
 * What a reload shows before the engine (`ChatSession`, `RunSession`, the transport) has
 * loaded: the persisted records, read once and composed exactly as the engine composes
 * them (`BranchView`, `composeMessages`). The same read is handed to the engine
 * (`ChatSession.preload`), so its first hydrated state holds the same messages.
 */

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
