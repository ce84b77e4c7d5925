import { isWireId, parseResume } from '@resumable/protocol';
import type { ChatRecord } from './chat-state.js';
import type { OutboxItem } from './types.js';

/**
 * A stored chat record's outbox checked by the server's own rules before any of it goes
 * out — sent as they are, a refused field is refused on every retry and holds the item
 * forever. Loaded (an `import()`) only for a record with an outbox: not on first paint.
 *
 * - Its runIds are already mended (`checked-record.ts`, which loads this chunk).
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
