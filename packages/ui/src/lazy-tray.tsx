import type { AttachmentsController } from '@resumable/hooks/attachments';
import type { AttachmentLabels } from './attachment-labels.js';
import { chunk, useChunk } from './lazy-chunk.js';

/**
 * The attachment tray's chunk (previews, progress, remove, retry), fetched when files are
 * first offered (the paperclip hovered or focused, a drag over the composer, a paste) or
 * attached: a chat that never attaches a file never loads it.
 */
export const trayChunk = chunk(() => import('./composer-attachments.js'));

/** Props of {@link AttachmentTray}: the composer's files and the words to show them with. */
export interface AttachmentTrayProps {
  /**
   * The files picked, pasted or dropped (`useAttachments(controller)` from
   * `@resumable/hooks/attachments`).
   */
  attachments: AttachmentsController;
  /**
   * Its words, whole: `attachments` (the list's name), `uploading`, `uploadFailed`,
   * `retryUpload`, `removeAttachment`, and the refusals `fileTooLarge`, `totalTooLarge` and
   * `tooManyFiles`.
   */
  labels: AttachmentLabels;
}

/**
 * The composer's attached files and refusals, loaded on first use: nothing until its chunk
 * is there (files appear only after the person picks, pastes or drops them).
 */
export function AttachmentTray(props: AttachmentTrayProps) {
  const { files, rejected } = props.attachments;
  const loaded = useChunk(trayChunk, files.length > 0 || rejected.length > 0);
  return loaded ? <loaded.AttachmentTray {...props} /> : null;
}
