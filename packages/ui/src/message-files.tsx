import { formatBytes } from '@resumable/hooks/attachments';
import { createContext, useContext } from 'react';
import { FileIcon } from './attachment-icons.js';
import {
  type AttachmentLabels,
  DEFAULT_ATTACHMENT_LABELS,
  useMergedLabels,
} from './attachment-labels.js';
import { isolateName } from './bidi-name.js';
import type { ChatMessage } from './controller-types.js';
import { safeUrl } from './safe-url.js';

/** How the transcript reaches the thread's files. */
export interface FileAccess {
  /** The thread's token, as `?token=` (an `<img>` cannot send a header). */
  token: string | null;
  /**
   * The origin of the API that serves the files, when it is not the page's: the server
   * answers file URLs as paths (`/api/threads/…`), resolved against it.
   * @default the page's origin
   */
  origin?: string | undefined;
}

/** `<ResumableChatView>` provides it from the controller (and its `fileOrigin`). */
export const FileAccessContext = createContext<FileAccess>({ token: null });

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

const withToken = (url: string, token: string | null) =>
  token ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : url;

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Where a file part's URL is fetched from, with the thread's token only for the API's own
 * files (a path, or a full URL on the API's origin): the token is never handed to another
 * site a hostile message might name.
 */
export function fileSrc(url: string, access: FileAccess): string {
  if (/^\/(?!\/)/.test(url)) return withToken(`${access.origin ?? ''}${url}`, access.token);
  const origin = access.origin ?? (typeof location === 'undefined' ? null : location.origin);
  return origin !== null && originOf(url) === origin ? withToken(url, access.token) : url;
}

/** A message's files: images inline, other files as chips (name and size) that open them. */
export function MessageFiles({
  message,
  labels: labelsProp,
}: {
  message: ChatMessage;
  labels?: Partial<AttachmentLabels>;
}) {
  const access = useContext(FileAccessContext);
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
            src={fileSrc(file.url, access)}
            alt={file.name}
            data-part="image"
          />
        ) : (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts never reorder
            key={i}
            className="rc-file-chip"
            href={fileSrc(file.url, access)}
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
