// Uploads (`@resumable/hooks/upload`): what `useResumableChat`'s `upload` loads on first use,
// for apps that upload without the chat's controller.
export type { CreatedThread } from '../core/net/thread-api.js';
export { createThread } from '../core/net/thread-api.js';
export type { UploadAnswer, UploadRequest, UploadTransport } from '../core/net/upload-transport.js';
export {
  defaultUploadTransport,
  fetchTransport,
  xhrTransport,
} from '../core/net/upload-transport.js';
export type { UploadFileOptions, UploadHost } from '../core/uploads/upload.js';
export { attachmentOf, uploadFile, uploadToChat } from '../core/uploads/upload.js';
