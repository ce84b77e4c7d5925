import type { Attachment } from '../net/attachment.js';
import type { RunApi } from '../net/run-api.js';
import { type CreatedThread, postThread } from '../net/thread-api.js';
import { sendFile, type UploadFileOptions } from '../net/uploads.js';

/**
 * The chat's part of an upload: a conversation with no thread yet gets one (`POST /threads`)
 * before its first file. Loaded lazily (`import()`) by `useResumableChat`'s `upload`.
 */

/**
 * What `uploadToChat` needs of a `ChatSession` (the feature's host: `uploads/` reaches no
 * further into `chat/`). Public as `ChatSession` (`upload/index.ts`).
 */
export interface UploadHost {
  getState(): { threadId: string | null; token: string | null };
  /** Makes the new thread the chat's own (persisted) before the file is sent. */
  adoptThread(threadId: string, token: string): Promise<void>;
  readonly run: { readonly api: RunApi };
  /** Aborts `POST /threads` when the chat is let go (`ChatSession.reads`). */
  readonly reads?: { readonly signal: AbortSignal };
}

/** One thread creation per chat at a time: three files dropped at once share it. */
const creating = new WeakMap<UploadHost, Promise<CreatedThread>>();

async function threadOf(chat: UploadHost): Promise<{ threadId: string; token: string | null }> {
  const { threadId, token } = chat.getState();
  if (threadId !== null) return { threadId, token };
  let pending = creating.get(chat);
  if (!pending) {
    pending = postThread(chat.run.api, chat.reads?.signal)
      .then(async (created) => {
        await chat.adoptThread(created.threadId, created.token);
        return created;
      })
      .finally(() => creating.delete(chat));
    creating.set(chat, pending);
  }
  return pending;
}

/** Uploads to the chat's thread, creating the thread first when the chat has none yet. */
export async function uploadToChat(
  chat: UploadHost,
  file: Blob,
  options: UploadFileOptions = {},
): Promise<Attachment> {
  return sendFile(chat.run.api, await threadOf(chat), file, options);
}
