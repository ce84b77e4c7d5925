// Uploads (`@resumable/hooks/upload`): what `useResumableChat`'s `upload` loads on first use,
// for apps that upload without the chat's controller. The calls take the server as
// `EndpointOptions` (the endpoint, headers and fetch the rest of the kit takes).
// `uploadToChat` takes a `ChatSession`, named here; the types of its members (its options,
// state, run session) are `/core`'s: exported here too, they would be `/core`'s surface again.

import type { ChatSession } from '../core/chat/chat-session.js';
import type { Attachment } from '../core/net/attachment.js';
import type { UploadFileOptions } from '../core/net/uploads.js';
import { uploadToChat as uploadToHost } from '../core/uploads/upload-to-chat.js';

export type { ChatSession } from '../core/chat/chat-session.js';
export type { Attachment } from '../core/net/attachment.js';
export type { EndpointOptions } from '../core/net/endpoint.js';
export type { HeadersOption } from '../core/net/run-api.js';
export type { CreatedThread } from '../core/net/thread-api.js';
export { createThread } from '../core/net/thread-api.js';
export type {
  UploadAnswer,
  UploadFileOptions,
  UploadOptions,
  UploadRequest,
  UploadTransport,
} from '../core/net/uploads.js';
export {
  attachmentOf,
  defaultUploadTransport,
  fetchTransport,
  uploadFile,
  xhrTransport,
} from '../core/net/uploads.js';

/**
 * Uploads to a chat's thread, creating the thread first (`POST /threads`, made the chat's
 * own) when the chat has none yet; three files dropped at once share that one thread. The
 * requests are the chat's: its endpoint, headers, fetch and timeouts.
 *
 * @example
 * ```ts
 * const chat = defaultClient('/api').chatSession('notes');
 * const attachment = await uploadToChat(chat, file);
 * await chat.send('What is in this picture?', { attachments: [attachment] });
 * ```
 */
export const uploadToChat: (
  chat: ChatSession,
  file: Blob,
  options?: UploadFileOptions,
) => Promise<Attachment> = uploadToHost;
