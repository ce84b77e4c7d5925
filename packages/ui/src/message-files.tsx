import { formatBytes } from '@resumable/hooks/attachments';
import { createContext, useContext } from 'react';
import { FileIcon } from './attachment-icons.js';
import {
  type AttachmentLabels,
  DEFAULT_ATTACHMENT_LABELS,
  useMergedLabels,
} from './attachment-labels.js';
import type { ChatMessage } from './controller-types.js';
import { safeUrl } from './safe-url.js';

/**
 * The thread's token, for the `<img>` and links of its files (`?token=`: an element cannot
 * send a header). `<ResumableChatView>` provides it from the controller.
 */
export const FileTokenContext = createContext<string | null>(null);

/** An image or document part of a message, as the transcript shows it. */
export interface MessageFile {
  kind: 'image' | 'document';
  url: string;
  mimeType: string;
  name: string;
  size: number | null;
}

/** The image and document parts (by URL) of a message's content; [] for plain text. */
export function messageFiles(message: { content?: unknown }): MessageFile[] {
  if (!Array.isArray(message.content)) return [];
  const files: MessageFile[] = [];
  for (const part of message.content as unknown[]) {
    const p = part as {
      type?: unknown;
      source?: { type?: unknown; value?: unknown; mimeType?: unknown };
      metadata?: { name?: unknown; size?: unknown };
    } | null;
    if (!p || (p.type !== 'image' && p.type !== 'document')) continue;
    if (p.source?.type !== 'url' || typeof p.source.value !== 'string') continue;
    const url = safeUrl(p.source.value);
    if (url === '') continue;
    const name = typeof p.metadata?.name === 'string' ? p.metadata.name : url.split('/').pop()!;
    const size = Number.isSafeInteger(p.metadata?.size) ? (p.metadata?.size as number) : null;
    const mimeType = typeof p.source.mimeType === 'string' ? p.source.mimeType : '';
    files.push({ kind: p.type, url, mimeType, name, size });
  }
  return files;
}

/**
 * The URL with the thread's token, only for a same-origin path (`/api/threads/…`): the
 * token is never handed to another site a hostile message might name.
 */
export function fileSrc(url: string, token: string | null): string {
  if (!token || !/^\/(?!\/)/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
}

/** A message's files: images inline, other files as chips (name and size) that open them. */
export function MessageFiles({
  message,
  labels: labelsProp,
}: {
  message: ChatMessage;
  labels?: Partial<AttachmentLabels>;
}) {
  const token = useContext(FileTokenContext);
  const labels = useMergedLabels(DEFAULT_ATTACHMENT_LABELS, labelsProp);
  const files = messageFiles(message);
  if (files.length === 0) return null;
  return (
    <div className="rc-message__files" data-part="files">
      {files.map((file, i) =>
        file.kind === 'image' ? (
          <img
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts never reorder
            key={i}
            className="rc-message__image"
            src={fileSrc(file.url, token)}
            alt={file.name}
            data-part="image"
          />
        ) : (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts never reorder
            key={i}
            className="rc-file-chip"
            href={fileSrc(file.url, token)}
            target="_blank"
            rel="noreferrer noopener"
            data-part="file"
          >
            <FileIcon />
            <span>
              {file.size === null ? file.name : labels.fileLink(file.name, formatBytes(file.size))}
            </span>
          </a>
        ),
      )}
    </div>
  );
}
