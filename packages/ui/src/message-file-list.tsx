import { formatBytes } from '@resumable/hooks/attachments';
import { FileIcon } from './attachment-icons.js';
import type { AttachmentLabels } from './attachment-labels.js';
import { isolateName } from './bidi-name.js';
import type { MessageFile } from './message-file-parts.js';

// What `<MessageFiles>` draws, in the transcript's parts chunk: the files it has found, with
// where each is fetched from.

/** A message's files: images inline, other files as chips (name and size) that open them. */
export function FileList({
  files,
  labels,
}: {
  files: ReadonlyArray<MessageFile & { src: string }>;
  labels: AttachmentLabels;
}) {
  return (
    <div className="rc-message__files" data-part="files">
      {files.map((file, i) =>
        file.kind === 'image' ? (
          <img
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts never reorder
            key={i}
            className="rc-message__image"
            src={file.src}
            alt={file.name}
            data-part="image"
          />
        ) : (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts never reorder
            key={i}
            className="rc-file-chip"
            href={file.src}
            target="_blank"
            rel="noreferrer noopener"
            data-part="file"
          >
            <FileIcon />
            <span>
              {isolateName(
                file.size === null
                  ? String
                  : (name) => labels.fileLink(name, formatBytes(file.size!)),
                file.name,
              )}
            </span>
          </a>
        ),
      )}
    </div>
  );
}
