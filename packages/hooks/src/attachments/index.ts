// Attachments: a separate entry (`@resumable/hooks/attachments`), so a page that shows a
// transcript does not load it. The upload itself (`@resumable/hooks/upload`) is loaded by
// `useResumableChat`'s `upload` on first use.

export { DEFAULT_ATTACHMENT_LIMITS } from '../core/base/defaults.js';
export type {
  AttachmentDraftState,
  AttachmentLimits,
  DraftFile,
  DraftPhase,
  DraftStatus,
  RejectedFile,
  RejectReason,
  UploadFn,
} from '../core/uploads/attachment-draft.js';
export {
  AttachmentDraft,
  draftStatus,
  formatBytes,
  transition,
} from '../core/uploads/attachment-draft.js';
export type { AttachmentsController } from '../react/use-attachments.js';
export { useAttachments } from '../react/use-attachments.js';
