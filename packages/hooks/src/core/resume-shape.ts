import { parseResume } from '@resumable/protocol';
import type { ChatRecord } from './chat-state.js';
import type { OutboxItem } from './types.js';

/**
 * A stored chat record with each outbox item's `resume` checked (`checkedResume`): a bad
 * one is dropped whole (partial answers are a 400 too). An item with text goes out as that
 * prompt; an answer with no text (nor files) has nothing left to send and is dropped — the
 * interrupts' record queues its answers again while the server has them open. Loaded (an
 * `import()`) only for a record holding a `resume`: not on first paint.
 */
export function withCheckedResume(record: ChatRecord): ChatRecord {
  const outbox = record.outbox.flatMap(({ resume, ...item }) => {
    if (resume === undefined) return [item];
    const answers = checkedResume(resume);
    if (answers) return [{ ...item, resume: answers }];
    return item.text === '' && !item.attachments?.length ? [] : [item];
  });
  return { ...record, outbox };
}

/**
 * A stored continuation's `resume` checked by the server's own rule (`parseResume`,
 * docs/protocol.md "Answering"), and not empty. Null when anything is off: sent as it is,
 * the server's 400 would hold the item forever.
 */
export function checkedResume(value: unknown): NonNullable<OutboxItem['resume']> | null {
  try {
    const entries = parseResume(value);
    return entries && entries.length > 0 ? entries : null;
  } catch {
    return null;
  }
}
