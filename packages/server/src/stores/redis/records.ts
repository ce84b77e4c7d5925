import type { Message, RunSnapshot } from '@resumable/protocol';
import { withLazySnapshot } from '../lazy-snapshot.js';
import type { MessagePage, RunRecord, StoredRunStatus, ThreadRecord } from '../types.js';

export function toRecord(flat: string[], streamExists: number): RunRecord | null {
  if (!flat || flat.length === 0) return null;
  const h: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
  const status = h.status as StoredRunStatus;
  const lastOffset = Number(h.lastOffset ?? 0);
  const ended = status !== 'running';
  const head = {
    runId: h.runId!,
    threadId: h.threadId!,
    status,
    createdAt: Number(h.createdAt),
    endedAt: h.endedAt === undefined ? null : Number(h.endedAt),
    lastOffset,
    // Pruned by a sweep, or the stream's TTL ran out.
    eventsPruned: h.eventsPruned === '1' || (ended && lastOffset > 0 && streamExists === 0),
    owner: h.owner ?? null,
    // Absent: a run from before branches; '': an answer at the root.
    ...(h.replyTo === undefined ? {} : { replyTo: h.replyTo === '' ? null : h.replyTo }),
  };
  const text = h.snapshot;
  if (!text) return { ...head, snapshot: null };
  // Parsed on first read only: most reads of a run look at its status and offsets.
  return withLazySnapshot(head, () => JSON.parse(text) as RunSnapshot);
}

/** A history page from `rsListMessages` (seq/id pairs and bodies, newest first). */
export function messagePage(
  rows: string[],
  bodies: Array<string | null>,
  limit: number,
): MessagePage {
  const found = rows.length / 2;
  const take = Math.min(found, limit);
  const messages: Message[] = [];
  // Newest first from Redis; the page is oldest to newest.
  for (let i = take - 1; i >= 0; i--) {
    const body = bodies[i];
    if (body != null) messages.push(JSON.parse(body) as Message);
  }
  const oldestSeq = take > 0 ? Number(rows[(take - 1) * 2 + 1]) : null;
  return { messages, nextBefore: found > limit ? oldestSeq : null };
}

/** The thread hash fields `threadOf` reads, in its order. */
export const THREAD_FIELDS = ['token', 'createdAt', 'firstRunId', 'title', 'updatedAt'] as const;

/** A thread from its `THREAD_FIELDS` values (HMGET); null when it does not exist. */
export function threadOf(threadId: string, fields: Array<string | null>): ThreadRecord | null {
  const [token, createdAt, firstRunId, title, updatedAt] = fields;
  if (token == null || createdAt == null) return null;
  return {
    threadId,
    token,
    createdAt: Number(createdAt),
    ...(firstRunId == null ? {} : { firstRunId }),
    ...(title == null ? {} : { title }),
    ...(updatedAt == null ? {} : { updatedAt: Number(updatedAt) }),
  };
}
