import { errorWords } from './error-words.js';
import type { ChatLabels } from './labels.js';

/**
 * The words of the composer's attachments, the transcript's files and `<ThreadList>`, for
 * translation. Passed in the same `labels` object as the chat's (`Partial<ChatLabels &
 * AttachmentLabels & ThreadListLabels>`); what you leave out keeps the English default.
 */
export interface AttachmentLabels {
  /** The paperclip button. @default 'Attach files' */
  attachFiles: string;
  /** Accessible name of the list of attached files. @default 'Attachments' */
  attachments: string;
  /** Shown over the composer while files are dragged over it. @default 'Drop files to attach' */
  dropFiles: string;
  removeAttachment: (name: string) => string;
  retryUpload: (name: string) => string;
  /** Progress of one upload; `percent` is 0–100. */
  uploading: (name: string, percent: number) => string;
  /** An upload the server (or the network) refused; `code` is the typed error's. */
  uploadFailed: (name: string, code: string) => string;
  /** `limit` is already in words ("10 MB"). */
  fileTooLarge: (name: string, limit: string) => string;
  totalTooLarge: (name: string, limit: string) => string;
  tooManyFiles: (name: string, max: number) => string;
  /** The Send button's hint while uploads are pending or failed. */
  waitForUploads: string;
  /** A file of a message in the transcript (a link), with its size in words. */
  fileLink: (name: string, size: string) => string;
}

export interface ThreadListLabels {
  /** Accessible name of the list (`<nav>`). @default 'Conversations' */
  threadList: string;
  /** @default 'New conversation' */
  newThread: string;
  /** A conversation with no title yet. @default 'New conversation' */
  untitled: string;
  renameThread: (title: string) => string;
  deleteThread: (title: string) => string;
  /** Accessible name of the title field while renaming. @default 'Conversation title' */
  threadTitle: string;
  /** @default 'Save' */
  save: string;
  /** @default 'Cancel' */
  cancel: string;
  confirmDelete: (title: string) => string;
  /** The confirming button. @default 'Delete' */
  confirmDeleteButton: string;
}

/** Plain words for an upload's failure: the codes an upload meets, then the common ones. */
function uploadWords(code: string): string {
  if (code === 'unsupported_media_type') return 'this type of file is not accepted.';
  if (code === 'payload_too_large') return 'the file is too large for the server.';
  return errorWords(code).replace(/^./, (c) => c.toLowerCase());
}

export const DEFAULT_ATTACHMENT_LABELS: AttachmentLabels = {
  attachFiles: 'Attach files',
  attachments: 'Attachments',
  dropFiles: 'Drop files to attach',
  removeAttachment: (name) => `Remove ${name}`,
  retryUpload: (name) => `Retry uploading ${name}`,
  uploading: (name, percent) => `Uploading ${name}: ${percent}%`,
  uploadFailed: (name, code) => `${name} could not be uploaded: ${uploadWords(code)}`,
  fileTooLarge: (name, limit) => `${name} is too large: files may be at most ${limit}.`,
  totalTooLarge: (name, limit) =>
    `${name} was not added: attachments may be at most ${limit} together.`,
  tooManyFiles: (name, max) => `${name} was not added: at most ${max} files per message.`,
  waitForUploads: 'Waiting for the files to upload',
  fileLink: (name, size) => `${name} (${size})`,
};

/** Every word of the kit: the chat's, the attachments' and the thread list's. */
export type AllLabels = ChatLabels & AttachmentLabels & ThreadListLabels;
