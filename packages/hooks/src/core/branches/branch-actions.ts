import { ResumableError } from '@resumable/protocol';
import type { ChatHost } from '../chat/host.js';
import type { ChatMessage } from '../conversation/state.js';
import type { Attachment } from '../net/attachment.js';

/**
 * Regenerate, edit and switch branches: loaded on first use (a dynamic `import()` from
 * `ChatSession`), so a page that only shows and follows a conversation never loads them.
 * Regenerate and edit are outbox items like a prompt: persisted before they are sent, sent
 * once (their run id is fixed), queued while offline or while a reply streams.
 */

function find(messages: readonly ChatMessage[], id: string): number {
  const at = messages.findIndex((m) => m.id === id);
  if (at < 0) throw new ResumableError('message_not_found', `no message ${id} in the branch shown`);
  return at;
}

/**
 * A new answer to the prompt `messageId` answers (or is); by default the last answer's.
 * The new branch is the one shown. Resolves with the new run's id.
 */
export function regenerate(chat: ChatHost, messageId?: string): Promise<string> {
  const { messages } = chat.getState();
  const at =
    messageId === undefined ? messages.findLastIndex((m) => !m.pending) : find(messages, messageId);
  const prompt = messages.slice(0, at + 1).findLast((m) => m.role === 'user');
  if (!prompt || prompt.pending) {
    throw new ResumableError('bad_request', 'there is no sent prompt to answer again');
  }
  const { randomUUID, now } = chat.run.env;
  return chat.enqueue({
    runId: randomUUID(),
    text: '',
    createdAt: now(),
    kind: 'regenerate',
    parentMessageId: prompt.id,
  });
}

/**
 * The prompt `messageId` asked again as `content`: a new prompt beside it (same parent),
 * answered on a new branch, which is the one shown. Resolves with the new run's id.
 */
export function edit(chat: ChatHost, messageId: string, content: string): Promise<string> {
  const { messages, hasOlder } = chat.getState();
  const at = find(messages, messageId);
  const original = messages[at]!;
  if (original.role !== 'user' || original.pending) {
    throw new ResumableError('bad_request', `message ${messageId} is not a sent prompt`);
  }
  const text = content.trim();
  if (text === '') throw new ResumableError('bad_request', 'an edited prompt cannot be empty');
  // The server's page names each message's parent; a prompt made here follows the message
  // before it (the root when nothing older exists).
  const before = at > 0 ? messages[at - 1]!.id : hasOlder ? undefined : null;
  const parentMessageId = original.parentId !== undefined ? original.parentId : before;
  if (parentMessageId === undefined) {
    throw new ResumableError('bad_request', `the parent of ${messageId} is not loaded`);
  }
  const { randomUUID, now } = chat.run.env;
  const attachments = attachmentsOf(original);
  return chat.enqueue({
    runId: randomUUID(),
    text,
    createdAt: now(),
    messageId: randomUUID(),
    parentMessageId,
    // The files the prompt carried go with its new text.
    ...(attachments.length > 0 ? { attachments } : {}),
  });
}

/** The uploaded files a prompt references (its image / document parts by URL). */
export function attachmentsOf(message: ChatMessage): Attachment[] {
  if (!Array.isArray(message.content)) return [];
  const files: Attachment[] = [];
  for (const part of message.content as unknown[]) {
    const p = part as {
      type?: unknown;
      source?: { type?: unknown; value?: unknown; mimeType?: unknown };
      metadata?: { fileId?: unknown; name?: unknown; size?: unknown };
    };
    if (p.type !== 'image' && p.type !== 'document') continue;
    const { source, metadata } = p;
    if (source?.type !== 'url' || typeof source.value !== 'string') continue;
    if (typeof source.mimeType !== 'string' || typeof metadata?.fileId !== 'string') continue;
    files.push({
      fileId: metadata.fileId,
      url: source.value,
      mimeType: source.mimeType,
      name: typeof metadata.name === 'string' ? metadata.name : metadata.fileId,
      size: typeof metadata.size === 'number' ? metadata.size : 0,
    });
  }
  return files;
}

/**
 * Shows sibling `index` of `messageId` and its newest continuation. At once when this page
 * knows that sibling; else when its page (`GET …/messages?through=`) arrives. The choice is
 * persisted with the chat's record, so a reload shows the same branch before any network.
 */
export async function switchBranch(
  chat: ChatHost,
  messageId: string,
  index: number,
): Promise<void> {
  const { messages } = chat.getState();
  const branch = messages[find(messages, messageId)]!.branch;
  const target = Number.isInteger(index) ? branch?.siblingIds[index] : undefined;
  if (target === undefined) {
    throw new ResumableError('bad_request', `message ${messageId} has no sibling ${index}`);
  }
  if (target === messageId && chat.getState().through !== null) return;
  if (!chat.branches.has(target)) {
    // Shown when its page arrives: the branch on screen stays until then.
    await chat.loadPage(null, target);
    return;
  }
  chat.store.setState({ through: target });
  chat.compose();
  await chat.persist();
  await chat.loadPage(null);
}
