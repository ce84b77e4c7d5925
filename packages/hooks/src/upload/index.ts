// Uploads (`@resumable/hooks/upload`): what `useResumableChat`'s `upload` loads on first use,
// for apps that upload without the chat's controller.
export type { CreatedThread } from '../core/thread-api.js';
export { createThread } from '../core/thread-api.js';
export type { UploadFileOptions, UploadHost } from '../core/upload.js';
export { attachmentOf, uploadFile, uploadToChat } from '../core/upload.js';
export type { UploadAnswer, UploadRequest, UploadTransport } from '../core/upload-transport.js';
export {
  defaultUploadTransport,
  fetchTransport,
  xhrTransport,
} from '../core/upload-transport.js';
