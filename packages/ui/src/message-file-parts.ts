import { createContext } from 'react';
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
  /** An `image` part (shown as a picture) or a `document` part (shown as a link). */
  kind: 'image' | 'document';
  /**
   * Where the file is: a URL a link may take (http(s), relative, mailto…; a part whose URL
   * is `javascript:`, `data:` or another scheme is left out). A path is resolved against
   * `FileAccess.origin` when drawn.
   */
  url: string;
  /** The part's media type, as the message gives it; '' when it has none. */
  mimeType: string;
  /** The file's name from the part's metadata, else the last segment of `url`. */
  name: string;
  /** The file's size in bytes from the part's metadata; null when it is not given. */
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
