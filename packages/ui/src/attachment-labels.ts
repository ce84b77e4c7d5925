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
  /** Accessible name of an attached file's remove button, by its name. @default 'Remove <name>' */
  removeAttachment: (name: string) => string;
  /**
   * Accessible name of a failed upload's retry button, by the file's name.
   * @default 'Retry uploading <name>'
   */
  retryUpload: (name: string) => string;
  /**
   * Accessible name of one upload's progress bar; `percent` is 0–100.
   * @default 'Uploading <name>: <percent>%'
   */
  uploading: (name: string, percent: number) => string;
  /**
   * An upload the server (or the network) refused, as its alert says it; `code` is the typed
   * error's. @default '<name> could not be uploaded: <the code in plain words>'
   */
  uploadFailed: (name: string, code: string) => string;
  /**
   * A file refused before upload for its size; `limit` is already in words ("10 MB").
   * @default '<name> is too large: files may be at most <limit>.'
   */
  fileTooLarge: (name: string, limit: string) => string;
  /**
   * A file refused before upload because the message's files together would pass `limit`
   * (already in words).
   * @default '<name> was not added: attachments may be at most <limit> together.'
   */
  totalTooLarge: (name: string, limit: string) => string;
  /**
   * A file refused before upload because the message already has `max` files.
   * @default '<name> was not added: at most <max> files per message.'
   */
  tooManyFiles: (name: string, max: number) => string;
  /**
   * The Send button's hint while uploads are pending or failed.
   * @default 'Waiting for the files to upload'
   */
  waitForUploads: string;
  /**
   * A file of a message in the transcript (a link), with its size in words.
   * @default '<name> (<size>)'
   */
  fileLink: (name: string, size: string) => string;
}

/**
 * The words of `<ThreadList>` (from `@resumable/ui/thread-list`), for translation. Pass a
 * partial object as its `labels`; what you leave out keeps `DEFAULT_THREAD_LIST_LABELS`.
 */
export interface ThreadListLabels {
  /** Accessible name of the list (`<nav>`). @default 'Conversations' */
  threadList: string;
  /** The button over the list that starts a conversation. @default 'New conversation' */
  newThread: string;
  /** A conversation with no title yet. @default 'New conversation' */
  untitled: string;
  /** Accessible name of a conversation's Rename button, by its title. @default 'Rename <title>' */
  renameThread: (title: string) => string;
  /** Accessible name of a conversation's Delete button, by its title. @default 'Delete <title>' */
  deleteThread: (title: string) => string;
  /** Accessible name of the title field while renaming. @default 'Conversation title' */
  threadTitle: string;
  /** The rename form's submit button. @default 'Save' */
  save: string;
  /** Leaves a rename or a delete confirmation unchanged. @default 'Cancel' */
  cancel: string;
  /**
   * The question asked before a conversation is deleted (and the name of its group of
   * buttons), by its title. @default 'Delete “<title>” and its messages and files?'
   */
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

/**
 * The English words of every {@link AttachmentLabels} key: what a key left out of a
 * `labels` prop falls back to.
 */
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
