import { ResumableError } from '@resumable/protocol';

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

/** Bytes `signatureOf` looks at: a binary type is told by the first 12 at most. */
export const SIGNATURE_BYTES = 12;

/** The binary type the bytes start with, or null. */
function signatureOf(bytes: Uint8Array): string | null {
  if (ascii(bytes, 0, '\x89PNG\r\n\x1a\n')) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return 'image/gif';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'image/webp';
  if (ascii(bytes, 0, '%PDF-')) return 'application/pdf';
  return null;
}

/** The binary type the bytes start with, `'text'` for UTF-8 text, or null. */
export function sniff(bytes: Uint8Array): string | null {
  const binary = signatureOf(bytes);
  if (binary !== null) return binary;
  const text = new TextCheck();
  return text.add(bytes) && text.end() ? 'text' : null;
}

/**
 * Text as it comes, piece by piece: valid UTF-8 without NUL or other C0 controls than
 * tab, line feed, carriage return. A character cut between two pieces is whole again in
 * the decoder, so pieces may end anywhere.
 */
export class TextCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /** False once the text so far is not text. */
  add(bytes: Uint8Array): boolean {
    for (const byte of bytes) {
      if (byte === 0x7f || (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d)) {
        return false;
      }
    }
    try {
      this.decoder.decode(bytes, { stream: true });
      return true;
    } catch {
      return false;
    }
  }

  /** False when the text ends inside a character. */
  end(): boolean {
    try {
      this.decoder.decode();
      return true;
    } catch {
      return false;
    }
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
  return declaredTypeOf(sniff(bytes), declared);
}

/** `fileTypeOf` once the bytes were sniffed (`found`: a type, `'text'` or null). */
function declaredTypeOf(found: string | null, declared: string | null): string | null {
  if (found === null) return null;
  const open = declared === null || declared === 'application/octet-stream';
  if (found === 'text') {
    if (open) return 'text/plain';
    return declared === 'text/plain' || declared === 'text/markdown' ? declared : null;
  }
  return open || declared === found ? found : null;
}

/**
 * An upload's type, told as its bytes arrive: from its first `SIGNATURE_BYTES` (all of it
 * when shorter) and its declaration, like `fileTypeOf`. Text is checked as it comes: the
 * returned `chunks` (the bytes unchanged) throw `415` at the first byte that is not
 * text, or at an end inside a character. `mimeType` is null when the start rules it out.
 */
export async function sniffStream(
  chunks: AsyncIterable<Uint8Array>,
  declared: string | null,
): Promise<{ mimeType: string | null; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const start: Uint8Array[] = [];
  let startBytes = 0;
  let done = false;
  while (startBytes < SIGNATURE_BYTES) {
    const step = await iterator.next();
    if (step.done) {
      done = true;
      break;
    }
    start.push(step.value);
    startBytes += step.value.byteLength;
  }
  const head = Buffer.concat(start, startBytes);
  const binary = signatureOf(head);
  const mimeType = declaredTypeOf(binary ?? 'text', declared);
  const notText = () =>
    new ResumableError(
      'unsupported_media_type',
      `the file's bytes are not ${declared ?? 'a known type'}`,
    );
  async function* all(): AsyncGenerator<Uint8Array> {
    const text = binary === null ? new TextCheck() : null;
    for (const piece of start) {
      if (text && !text.add(piece)) throw notText();
      yield piece;
    }
    while (!done) {
      const step = await iterator.next();
      if (step.done) break;
      if (text && !text.add(step.value)) throw notText();
      yield step.value;
    }
    if (text && !text.end()) throw notText();
  }
  return { mimeType, chunks: all() };
}
