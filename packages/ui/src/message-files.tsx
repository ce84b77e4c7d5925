import { useContext } from 'react';
import { type AttachmentLabels, DEFAULT_ATTACHMENT_LABELS } from './attachment-labels.js';
import type { ChatMessage } from './controller-types.js';
import { useMergedLabels } from './labels.js';
import { useChunk } from './lazy-chunk.js';
import { partsChunk } from './lazy-parts.js';
import { FileAccessContext, fileSrc, messageFiles } from './message-file-parts.js';

/** Props of {@link MessageFiles}: the message whose files to show, and their words. */
export interface MessageFilesProps {
  /** The message whose image and document parts (by URL) are shown. */
  message: ChatMessage;
  /**
   * Overrides of its words: `fileLink` (a document chip's name, with its size). What is left
   * out keeps `DEFAULT_ATTACHMENT_LABELS`.
   * @default DEFAULT_ATTACHMENT_LABELS
   */
  labels?: Partial<AttachmentLabels>;
}

/**
 * A message's files: images inline, other files as chips (name and size) that open them.
 * Drawn by the transcript's parts chunk (`partsChunk`): nothing until it is there.
 */
export function MessageFiles({ message, labels: labelsProp }: MessageFilesProps) {
  const access = useContext(FileAccessContext);
  const labels = useMergedLabels(DEFAULT_ATTACHMENT_LABELS, labelsProp);
  const files = messageFiles(message);
  const parts = useChunk(partsChunk, files.length > 0);
  if (files.length === 0 || !parts) return null;
  return (
    <parts.FileList
      files={files.map((file) => ({ ...file, src: fileSrc(file.url, access) }))}
      labels={labels}
    />
  );
}
