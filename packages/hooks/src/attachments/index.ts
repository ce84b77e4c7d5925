// Attachments: a separate entry (`@resumable/hooks/attachments`), so a page that shows a
// transcript does not load it. The upload itself (`@resumable/hooks/upload`) is loaded by
// `useResumableChat`'s `upload` on first use. `useAttachments` takes a chat's controller: its
// types are named here too.

export { DEFAULT_ATTACHMENT_LIMITS } from '../core/base/defaults.js';
export type { SendOptions } from '../core/chat/options.js';
export type { ChatController, InterruptControls } from '../core/client/controller.js';
export type { BranchInfo, ChatMessage, OutboxItem } from '../core/conversation/state.js';
export type { ChatInterrupt } from '../core/interrupts/chat-interrupts.js';
export type { Attachment } from '../core/net/attachment.js';
export type { UploadOptions } from '../core/net/uploads.js';
export type { ConnectionInfo, ConnectionPhase } from '../core/run/connection.js';
export type {
  AttachmentDraftState,
  AttachmentLimits,
  DraftEvent,
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
