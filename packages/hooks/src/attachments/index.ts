// Attachments: a separate entry (`@resumable/hooks/attachments`), so a page that shows a
// transcript does not load the upload code.
export type {
  AttachmentDraftState,
  AttachmentLimits,
  DraftFile,
  DraftPhase,
  DraftStatus,
  RejectedFile,
  RejectReason,
  UploadFn,
} from '../core/attachments.js';
export {
  AttachmentDraft,
  DEFAULT_ATTACHMENT_LIMITS,
  draftStatus,
  formatBytes,
  transition,
} from '../core/attachments.js';
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
export type { AttachmentsController } from '../react/use-attachments.js';
export { useAttachments } from '../react/use-attachments.js';
