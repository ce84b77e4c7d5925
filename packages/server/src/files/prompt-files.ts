import type { Message } from '@resumable/protocol';
import type { StoredFile } from '../stores/types.js';
import type { ReadFile } from './references.js';

/** A user message's content for a model: its text and the files it names, in order. */
export type PromptPart =
  | { kind: 'text'; text: string }
  | { kind: 'file'; file: StoredFile; bytes: Uint8Array };

/** Whether the message names any file (`image` / `document` / … parts). */
export function hasFileParts(message: Message): boolean {
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) && content.some((part) => isFilePart(part));
}

function isFilePart(part: unknown): part is { source?: { value?: unknown } } {
  const type = (part as { type?: unknown } | null)?.type;
  return type === 'image' || type === 'document' || type === 'audio' || type === 'video';
}

/**
 * The message's parts with each named file read from the store. A file that is gone (the
 * thread was deleted mid-run) becomes a text note, so the model still gets the turn.
 * Text files are given as text: models read text, few take `text/plain` attachments.
 */
export async function promptParts(message: Message, readFile: ReadFile | undefined) {
  const content = (message as { content?: unknown }).content;
  const parts: PromptPart[] = [];
  for (const part of Array.isArray(content) ? content : [content]) {
    if (typeof part === 'string') parts.push({ kind: 'text', text: part });
    else if ((part as { type?: unknown })?.type === 'text') {
      parts.push({ kind: 'text', text: String((part as { text?: unknown }).text ?? '') });
    } else if (isFilePart(part)) {
      const url = String(part.source?.value ?? '');
      const found = readFile ? await readFile(url) : null;
      if (!found) parts.push({ kind: 'text', text: `[file not available: ${url}]` });
      else if (found.file.mimeType.startsWith('text/')) {
        const text = new TextDecoder().decode(found.bytes);
        parts.push({ kind: 'text', text: `${found.file.name}:\n${text}` });
      } else parts.push({ kind: 'file', ...found });
    }
  }
  return parts;
}

/** `data:<type>;base64,<bytes>`: how an OpenAI-style API takes inline images and files. */
export function dataUrl(file: StoredFile, bytes: Uint8Array): string {
  return `data:${file.mimeType};base64,${Buffer.from(bytes).toString('base64')}`;
}
