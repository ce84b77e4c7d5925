/**
 * The content type of a file, from its first bytes. Five signatures and a UTF-8 check are
 * all the allow-list needs, so they are written here rather than pulling in `file-type`
 * (which knows 100+ formats through a tokenizer and four dependencies).
 */

/** Every type the server can recognise; the `files.allowedTypes` default. */
export const KNOWN_FILE_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/markdown',
] as const;

const ascii = (bytes: Uint8Array, at: number, text: string) =>
  bytes.length >= at + text.length &&
  [...text].every((char, i) => bytes[at + i] === char.charCodeAt(0));

/** The binary type the bytes start with, `'text'` for UTF-8 text, or null. */
export function sniff(bytes: Uint8Array): string | null {
  if (ascii(bytes, 0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return 'image/gif';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'image/webp';
  if (ascii(bytes, 0, '%PDF-')) return 'application/pdf';
  return isText(bytes) ? 'text' : null;
}

/** Valid UTF-8 without NUL or other C0 controls than tab, line feed, carriage return. */
function isText(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x7f || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d)) {
      return false;
    }
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The stored type of an upload: what the bytes are, checked against what the client said.
 * Text cannot tell plain from Markdown, so for text the declared `text/plain` or
 * `text/markdown` is taken; a binary type must be the one declared. An absent or
 * `application/octet-stream` declaration takes what was sniffed (text: `text/plain`).
 * Null when the bytes are of no known type or contradict the declaration.
 */
export function fileTypeOf(bytes: Uint8Array, declared: string | null): string | null {
  const found = sniff(bytes);
  if (found === null) return null;
  const open = declared === null || declared === 'application/octet-stream';
  if (found === 'text') {
    if (open) return 'text/plain';
    return declared === 'text/plain' || declared === 'text/markdown' ? declared : null;
  }
  return open || declared === found ? found : null;
}
