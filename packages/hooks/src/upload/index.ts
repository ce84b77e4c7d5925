// Uploads (`@resumable/hooks/upload`): what `useResumableChat`'s `upload` loads on first use,
// for apps that upload without the chat's controller.
export type { CreatedThread } from '../core/net/thread-api.js';
export { createThread } from '../core/net/thread-api.js';
export type {
  UploadAnswer,
  UploadFileOptions,
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
export type { UploadHost } from '../core/uploads/upload-to-chat.js';
export { uploadToChat } from '../core/uploads/upload-to-chat.js';
