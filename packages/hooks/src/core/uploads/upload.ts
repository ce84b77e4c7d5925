import { errorFromBody, ResumableError } from '@resumable/protocol';
import type { Attachment, UploadOptions } from '../chat/types.js';
import { isAttachment } from '../conversation/state.js';
import { fileName } from '../net/file-name.js';
import { parseRetryAfter } from '../net/http.js';
import type { RunApi } from '../net/run-api.js';
import { type CreatedThread, createThread } from '../net/thread-api.js';
import {
  defaultUploadTransport,
  MAX_ANSWER,
  type UploadAnswer,
  type UploadTransport,
} from '../net/upload-transport.js';

/**
 * Uploads to `POST /threads/{id}/files` (docs/protocol.md), and the chat's part of it: a
 * conversation with no thread yet gets one (`POST /threads`) before its first file.
 * Loaded lazily (`import()`) by `useResumableChat`'s `upload`: not on first paint.
 */

export interface UploadFileOptions extends UploadOptions {
  /** How the bytes go out. @default XMLHttpRequest in a page, a streamed fetch elsewhere */
  transport?: UploadTransport;
  /** No progress and no answer for this long ends the upload with `timeout`. @default 30000 */
  idleTimeoutMs?: number;
}

export const DEFAULT_UPLOAD_IDLE_MS = 30_000;

/** Uploads `file` to the thread; resolves with what a prompt references. */
export async function uploadFile(
  api: RunApi,
  thread: { threadId: string; token: string | null },
  file: Blob,
  options: UploadFileOptions = {},
): Promise<Attachment> {
  const { threadId, token } = thread;
  const name = fileName(file, options.name);
  const url = `${api.endpoint}/threads/${encodeURIComponent(threadId)}/files?name=${encodeURIComponent(name)}`;
  const headers = {
    ...(await api.headers(token, { threadId })),
    Accept: 'application/json',
    'Content-Type': file.type || 'application/octet-stream',
  };
  const transport = options.transport ?? defaultUploadTransport(api.fetch);
  const answer = await transport({
    url,
    headers,
    body: file,
    onProgress: options.onProgress,
    signal: options.signal,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_UPLOAD_IDLE_MS,
  });
  return attachmentOf(answer, url);
}

function parseJson(answer: UploadAnswer): unknown {
  if (!/^application\/(.+\+)?json\b/i.test(answer.contentType.trim())) return null;
  if (answer.text.length > MAX_ANSWER) return null;
  try {
    return JSON.parse(answer.text);
  } catch {
    return null;
  }
}

/**
 * The upload's answer, checked: a `201` naming the file (string ids, URL, type, a size
 * that is a safe integer), or the server's own error; anything else `unexpected_response`.
 */
export function attachmentOf(answer: UploadAnswer, url: string): Attachment {
  const body = parseJson(answer);
  if (answer.status !== 201 && answer.status !== 200) {
    throw errorFromBody(answer.status, body, parseRetryAfter(answer.retryAfter, Date.now()));
  }
  if (!isAttachment(body)) {
    throw new ResumableError('unexpected_response', `upload to ${url} answered without its file`, {
      status: answer.status,
    });
  }
  const { fileId, url: fileUrl, mimeType, size, name } = body;
  return { fileId, url: fileUrl, mimeType, size, name };
}

/** What `uploadToChat` needs of a `ChatSession` (structural: tests may pass their own). */
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
    pending = createThread(chat.run.api, chat.reads?.signal)
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
  return uploadFile(chat.run.api, await threadOf(chat), file, options);
}
