// Loaded on demand by <Composer> (a dynamic import) once a file is attached or refused.
import type { AttachmentsController, DraftFile, RejectedFile } from '@resumable/hooks/attachments';
import { formatBytes } from '@resumable/hooks/attachments';
import { type ReactNode, useEffect, useState } from 'react';
import { ActionButton } from './action-button.js';
import { FileIcon } from './attachment-icons.js';
import type { AttachmentLabels } from './attachment-labels.js';
import { isolateName, type PutName, plainName } from './bidi-name.js';
import { Icon, RetryIcon } from './icons.js';

export function CloseIcon() {
  return (
    <Icon>
      <path d="M18 6 6 18M6 6l12 12" />
    </Icon>
  );
}

/** What the composer says about a refused file (its name put in as `put` puts it). */
export function rejectedText(
  r: RejectedFile,
  labels: AttachmentLabels,
  put: PutName = plainName,
): ReactNode {
  const { limit } = r;
  return put(
    r.reason === 'file_too_large'
      ? (name) => labels.fileTooLarge(name, formatBytes(limit))
      : r.reason === 'total_too_large'
        ? (name) => labels.totalTooLarge(name, formatBytes(limit))
        : (name) => labels.tooManyFiles(name, limit),
    r.name,
  );
}

/**
 * A preview URL for a file, revoked when the file leaves (removal, send) or the component
 * unmounts, so previews never leak memory. Null where the runtime has no object URLs.
 */
function useObjectUrl(blob: Blob | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob || typeof URL.createObjectURL !== 'function') return;
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => {
      URL.revokeObjectURL(made);
      setUrl(null);
    };
  }, [blob]);
  return url;
}

function AttachmentItem({
  file,
  attachments,
  labels,
}: {
  file: DraftFile;
  attachments: AttachmentsController;
  labels: AttachmentLabels;
}) {
  const preview = useObjectUrl(file.type.startsWith('image/') ? file.file : null);
  const percent = file.size === 0 ? 100 : Math.floor((file.loaded / file.size) * 100);
  return (
    <li className="rc-attachment" data-phase={file.phase}>
      {preview ? (
        <img className="rc-attachment__thumb" src={preview} alt="" />
      ) : (
        <span className="rc-attachment__icon">
          <FileIcon />
        </span>
      )}
      <span className="rc-attachment__text">
        <span className="rc-attachment__name">{file.name}</span>
        <span className="rc-attachment__size">{formatBytes(file.size)}</span>
      </span>
      {file.phase === 'uploading' ? (
        <progress
          className="rc-attachment__progress"
          max={100}
          value={percent}
          aria-label={labels.uploading(file.name, percent)}
        />
      ) : null}
      {file.phase === 'failed' ? (
        <>
          <span className="rc-attachment__error" role="alert">
            {isolateName(
              (name) => labels.uploadFailed(name, file.error?.code ?? 'network'),
              file.name,
            )}
          </span>
          <ActionButton
            className="rc-attachment__button"
            label={labels.retryUpload(file.name)}
            onClick={() => attachments.retry(file.id)}
          >
            <RetryIcon />
          </ActionButton>
        </>
      ) : null}
      <ActionButton
        className="rc-attachment__button"
        label={labels.removeAttachment(file.name)}
        onClick={() => attachments.remove(file.id)}
      >
        <CloseIcon />
      </ActionButton>
    </li>
  );
}

/** The composer's attached files (previews, progress, remove, retry) and refusals. */
export function AttachmentTray({
  attachments,
  labels,
}: {
  attachments: AttachmentsController;
  labels: AttachmentLabels;
}) {
  const { files, rejected } = attachments;
  if (files.length === 0 && rejected.length === 0) return null;
  return (
    <div className="rc-attachments">
      {rejected.length > 0 ? (
        <ul className="rc-attachments__rejected" role="alert">
          {rejected.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a list replaced whole, never reordered
            <li key={i}>{rejectedText(r, labels, isolateName)}</li>
          ))}
        </ul>
      ) : null}
      {files.length > 0 ? (
        <ul className="rc-attachments__list" aria-label={labels.attachments}>
          {files.map((file) => (
            <AttachmentItem key={file.id} file={file} attachments={attachments} labels={labels} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}
