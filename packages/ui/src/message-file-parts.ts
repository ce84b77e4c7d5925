import type { FilePart } from '@resumable/hooks/turns';
import { createContext } from 'react';

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

/**
 * An image or document part of a message, as the transcript shows it: a turn's file part
 * (`@resumable/hooks/turns`), whose extraction the transcript shares.
 */
export type MessageFile = FilePart;

export { messageFiles } from '@resumable/hooks/turns';

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
