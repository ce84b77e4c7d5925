import { isWireId, parseResume, ResumableError } from '@resumable/protocol';
import { toResumable } from '../base/errors.js';
import type { OutboxItem } from '../conversation/state.js';
import type { ChatRecord } from './chat-record.js';
import { chatRecordKey, parseChatRecord, type RecordChecker } from './chat-record.js';
import { withSendableRunIds } from './sendable-run-ids.js';

/**
 * The chat's stored record checked (runIds mended, then `checkedOutbox`) and written back
 * before any of it goes out, in one read-modify-write of what is stored now. Mended only in
 * memory, a runId would be minted again by a reload after the server took the POST (or by
 * a second tab reading the same record): the same prompt as a second run. Only what is
 * still bad is mended, so a second reader adopts the first one's runIds. Null when the
 * record went meanwhile (the chat reset elsewhere); a write that fails is a warning and
 * leaves the check in memory (the record could not keep the prompt's runId either).
 */
export async function storedChecked(
  record: ChatRecord,
  chat: RecordChecker,
): Promise<ChatRecord | null> {
  const { key, onWarning } = chat.options;
  const check = (r: ChatRecord) =>
    checkedOutbox(withSendableRunIds(r, () => chat.run.env.randomUUID()));
  let checked: ChatRecord | null = null;
  try {
    await chat.run.storage.update(chatRecordKey(key), (old) => {
      const now = parseChatRecord(old, key);
      checked = now instanceof ResumableError || now === null ? null : check(now);
      return checked ?? old;
    });
    return checked;
  } catch (error) {
    onWarning?.(toResumable(error));
    return check(record);
  }
}

/**
 * A stored chat record's outbox checked by the server's own rules before any of it goes
 * out — sent as they are, a refused field is refused on every retry and holds the item
 * forever. Loaded (an `import()`) only for a record with an outbox: not on first paint.
 *
 * - Its runIds are mended first (`withSendableRunIds`).
 * - A `parentMessageId` the server refuses (not an id, nor null) is dropped: the prompt goes
 *   after the thread's newest message; a regenerate (no text) without one is dropped. An
 *   empty `messageId` (the server's 400) is dropped: the prompt gets its default id.
 * - A bad `resume` (`checkedResume`) is dropped whole (partial answers are a 400 too). An
 *   item with text goes out as that prompt; an answer with no text (nor files) has nothing
 *   left to send and is dropped — the interrupts' record queues its answers again while the
 *   server has them open.
 */
export function checkedOutbox(record: ChatRecord): ChatRecord {
  const outbox = record.outbox.flatMap(({ resume, messageId, parentMessageId, ...stored }) => {
    // A regenerate needs its parent; a prompt may go without one.
    if (stored.kind === 'regenerate' && !isWireId(parentMessageId)) return [];
    const item: OutboxItem = {
      ...stored,
      ...(messageId ? { messageId } : {}),
      ...(parentMessageId === null || isWireId(parentMessageId) ? { parentMessageId } : {}),
    };
    if (resume === undefined) return [item];
    const answers = checkedResume(resume);
    if (answers) return [{ ...item, resume: answers }];
    return item.text === '' && !item.attachments?.length ? [] : [item];
  });
  return { ...record, outbox };
}

/**
 * A stored continuation's `resume` checked by the server's own rule (`parseResume`,
 * docs/protocol.md "Answering"), and not empty. Null when anything is off.
 */
export function checkedResume(value: unknown): NonNullable<OutboxItem['resume']> | null {
  try {
    const entries = parseResume(value);
    return entries && entries.length > 0 ? entries : null;
  } catch {
    return null;
  }
}
