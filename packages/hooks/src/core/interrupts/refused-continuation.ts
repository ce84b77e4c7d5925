import type { ResumableError } from '@resumable/protocol';
import type { OutboxHost } from '../chat/outbox-send.js';
import type { OutboxItem } from '../chat/types.js';
import { toResumable } from '../run/run-session.js';
import {
  interruptRecordKey,
  parseInterruptRecord,
  withoutContinuation,
} from './interrupt-record.js';

/**
 * A continuation (answers to interrupts) the server refused for good — judged once, by the
 * outbox's own error path (`ERROR_ACTIONS`: any `stop`, or no progress) — ends its answers:
 * kept `queued`, they would hold their interrupts for good and be queued again on every
 * reload. Its outbox item goes (a text it carried stays, as a refused prompt to retry or
 * discard), the chat shows the server's error, the answers leave the interrupts' record, and
 * the chat's interrupt session (`onRefusedContinuation`) opens the interrupts again.
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

/** Ends `item`'s answers after `error`; true when the item left the outbox (no text). */
export async function endContinuation(
  host: OutboxHost,
  item: OutboxItem,
  error: ResumableError,
): Promise<boolean> {
  const { resume: _ended, ...prompt } = item;
  const kept = item.text !== '' || (item.attachments?.length ?? 0) > 0;
  const refused = { ...prompt, error: { code: error.code, message: error.message } };
  const outbox = host.store
    .getState()
    .outbox.flatMap((o) => (o.runId !== item.runId ? [o] : kept ? [refused] : []));
  if (!kept) host.optimistic.delete(item.runId);
  for (const listener of listeners.get(host.store) ?? []) listener(item.runId, error);
  host.store.setState({ sending: null, error, outbox });
  host.compose();
  await Promise.all([host.persist(), dropAnswers(host, item.runId)]);
  return !kept;
}

/** The interrupts' record without the answers continuation `runId` carried. */
async function dropAnswers({ run, warn }: OutboxHost, runId: string): Promise<void> {
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
