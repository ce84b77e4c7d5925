/** A file uploaded to the thread (`POST /threads/{id}/files`), as the server described it. */
export interface Attachment {
  /** The server's id of the file in its thread. */
  fileId: string;
  /** Where the server serves it (needs the thread's token: header, or `?token=`). */
  url: string;
  /** The type the server sniffed and accepted. */
  mimeType: string;
  /** Bytes. */
  size: number;
  /** The file name the server keeps. */
  name: string;
}

/** An uploaded file as the server named it: string ids, URL and type, a size in bytes. */
export function isAttachment(value: unknown): value is Attachment {
  const b = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return (
    typeof b.fileId === 'string' &&
    b.fileId !== '' &&
    typeof b.url === 'string' &&
    b.url !== '' &&
    typeof b.mimeType === 'string' &&
    typeof b.name === 'string' &&
    Number.isSafeInteger(b.size) &&
    (b.size as number) >= 0
  );
}
