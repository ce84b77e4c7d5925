import type { ChatMessage, ChatState, OutboxItem } from '../conversation/state.js';
import type { Attachment } from '../net/attachment.js';
import type { RunSessionState } from '../run/session-store.js';
import { composeMessages } from './compose.js';

/** The user message an outbox item shows before the server has it. */
export function optimisticMessage(item: OutboxItem): ChatMessage {
  const id = item.messageId ?? `user-${item.runId}`;
  const parent = item.parentMessageId === undefined ? {} : { parentId: item.parentMessageId };
  return { id, role: 'user', content: item.text, pending: 'queued', ...parent } as ChatMessage;
}

/** An AG-UI image or document part referencing an uploaded file by its URL. */
export interface FilePart {
  type: 'image' | 'document';
  source: { type: 'url'; value: string; mimeType: string };
  /** What the transcript shows for it (name, size) without fetching the file. */
  metadata: { fileId: string; name: string; size: number };
}

export function filePart(a: Attachment): FilePart {
  return {
    type: a.mimeType.startsWith('image/') ? 'image' : 'document',
    source: { type: 'url', value: a.url, mimeType: a.mimeType },
    metadata: { fileId: a.fileId, name: a.name, size: a.size },
  };
}

/**
 * The user message's AG-UI `content`: the text alone (a plain string, as before), or a
 * text part followed by one part per attached file.
 */
export function userContent(
  item: Pick<OutboxItem, 'text' | 'attachments'>,
): string | Array<{ type: 'text'; text: string } | FilePart> {
  const files = item.attachments ?? [];
  if (files.length === 0) return item.text;
  const text = item.text === '' ? [] : [{ type: 'text' as const, text: item.text }];
  return [...text, ...files.map(filePart)];
}

/**
 * The outbox's optimistic user messages, by run id: one object per waiting prompt (its
 * identity kept while only `pending` changes), dropped once the run is confirmed or the
 * prompt discarded, so the map is bounded by the outbox. It composes the transcript with
 * them (`composeMessages`).
 */
export class OptimisticMessages {
  private readonly byRun = new Map<string, ChatMessage>();
  private lastParts: unknown[] = [];

  /** The transcript, or null when none of its parts changed since the last call. */
  compose(
    chat: ChatState,
    run: Pick<RunSessionState, 'runId' | 'messages'>,
  ): readonly ChatMessage[] | null {
    const parts = [
      chat.history,
      chat.settled,
      chat.prompt,
      chat.sending,
      chat.outbox,
      run.messages,
      run.runId,
    ];
    if (parts.every((part, i) => part === this.lastParts[i])) return null;
    this.lastParts = parts;
    return composeMessages(chat, run.messages, run.runId, (item, pending) =>
      this.of(item, pending),
    );
  }

  get size(): number {
    return this.byRun.size;
  }

  /** The prompt's message, as `pending` when given (a new object only when it changes). */
  of(item: OutboxItem, pending?: 'sending' | 'queued'): ChatMessage {
    const base =
      this.byRun.get(item.runId) ??
      ({ ...optimisticMessage(item), content: userContent(item) } as ChatMessage);
    const next =
      pending === undefined || base.pending === pending
        ? base
        : ({ ...base, pending } as ChatMessage);
    this.byRun.set(item.runId, next);
    return next;
  }

  delete(runId: string): void {
    this.byRun.delete(runId);
  }

  clear(): void {
    this.byRun.clear();
  }
}
