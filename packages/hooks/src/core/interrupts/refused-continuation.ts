import type { ResumableError } from '@resumable/protocol';
import { toResumable } from '../base/errors.js';
import type { ChatHost, ContinuationRefusal } from '../chat/host.js';
import {
  interruptRecordKey,
  parseInterruptRecord,
  withoutContinuation,
} from './interrupt-record.js';

/**
 * The interrupts' part of a continuation (answers to interrupts) the server refused for good
 * (the outbox judged it: `chat/outbox.ts`): the chat's interrupt session hears it
 * (`onRefusedContinuation`) and opens the interrupts again, and the answers leave the
 * interrupts' record — also when no interrupt session runs (a stored outbox sent after a
 * reload, before the interrupts chunk loaded). A chunk: off first paint.
 */

type Listener = (runId: string, error: ResumableError) => void;

/** Per chat (its store): who hears its refused continuations. */
const listeners = new WeakMap<object, Set<Listener>>();

/** `listener` hears each continuation of the chat with `store` that is refused for good. */
export function onRefusedContinuation(store: object, listener: Listener): () => void {
  const set = listeners.get(store) ?? new Set<Listener>();
  listeners.set(store, set);
  set.add(listener);
  return () => set.delete(listener);
}

/** The listeners hear it at once; the record is written after (resolves when it is). */
export const continuationRefused: ContinuationRefusal['continuationRefused'] = (
  chat,
  runId,
  error,
  warn,
) => {
  for (const listener of listeners.get(chat.store) ?? []) listener(runId, error);
  return dropAnswers(chat.run, runId, warn);
};

/** The interrupts' record without the answers continuation `runId` carried. */
async function dropAnswers(
  run: ChatHost['run'],
  runId: string,
  warn: (warning: ResumableError) => void,
): Promise<void> {
  try {
    await run.storage.update(interruptRecordKey(run.key), (old) => {
      const record = parseInterruptRecord(old, run.key);
      if (!record.answers.some((a) => a.runId === runId)) return old;
      return withoutContinuation(record, runId);
    });
  } catch (error) {
    // Said, not swallowed. The interrupt session's own write drops them too, when it runs;
    // a reload's read finds no continuation in the outbox and the server's statuses decide.
    warn(toResumable(error));
  }
}
