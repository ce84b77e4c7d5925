import type { Message } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import type { FileStore, StoredFile } from '../stores/types.js';

/** Content part types that carry a file by `source`. */
const FILE_PARTS = new Set(['image', 'document', 'audio', 'video']);

/** The URL path a file is served at (and referenced by from prompts). */
export function fileUrl(basePath: string, threadId: string, fileId: string): string {
  return `${basePath}/threads/${encodeURIComponent(threadId)}/files/${encodeURIComponent(fileId)}`;
}

/**
 * The file a part's URL names, when it is one of `threadId`'s file URLs (a path, or a full
 * URL whose path is one; a query such as `?token=` is ignored). Null otherwise.
 */
export function fileIdOf(value: unknown, basePath: string, threadId: string): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  let path: string;
  try {
    path = new URL(value, 'http://relative.invalid').pathname;
  } catch {
    return null;
  }
  const prefix = `${basePath}/threads/${encodeURIComponent(threadId)}/files/`;
  if (!path.startsWith(prefix)) return null;
  const rest = path.slice(prefix.length);
  return rest !== '' && !rest.includes('/') ? decodeURIComponent(rest) : null;
}

interface FilePart {
  type: string;
  source?: { type?: unknown; value?: unknown };
}

/** Every file-carrying part of the messages, with where it is (for error messages). */
function fileParts(messages: readonly Message[]): Array<{ part: FilePart; where: string }> {
  const found: Array<{ part: FilePart; where: string }> = [];
  messages.forEach((message, i) => {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) return;
    content.forEach((part: FilePart, j) => {
      if (FILE_PARTS.has(part.type)) found.push({ part, where: `messages[${i}].content[${j}]` });
    });
  });
  return found;
}

/**
 * Refuses (`400`) a prompt whose file parts are not `source: {type: "url", value}` naming a
 * file this thread has: a model is only ever given the thread's own uploads, read from the
 * store (never a URL fetched on a client's word). `files` null: a new thread, no files.
 */
export async function checkFileReferences(
  messages: readonly Message[],
  threadId: string,
  basePath: string,
  files: FileStore | null,
): Promise<void> {
  for (const { part, where } of fileParts(messages)) {
    const source = part.source;
    const fileId = source?.type === 'url' ? fileIdOf(source.value, basePath, threadId) : null;
    // Marked before it is looked up: a sweep of unnamed uploads then either spares it or
    // took it already (and the prompt is refused).
    if (fileId !== null && files) await files.markReferenced?.(threadId, fileId);
    const file = fileId !== null && files ? await files.head(threadId, fileId) : null;
    if (!file) {
      throw new ResumableError(
        'bad_request',
        `${where}.source must be {type:"url", value} with the URL of a file uploaded to this thread`,
      );
    }
  }
}

/** Reads the file a part's URL names, for an agent (see `AgentContext.readFile`). */
export type ReadFile = (url: string) => Promise<{ file: StoredFile; bytes: Uint8Array } | null>;

export function fileReader(files: FileStore, basePath: string, threadId: string): ReadFile {
  return async (url) => {
    const fileId = fileIdOf(url, basePath, threadId);
    return fileId === null ? null : files.get(threadId, fileId);
  };
}
