import type { Message } from '@resumable/protocol';
import { isWireId, ResumableError } from '@resumable/protocol';
import type { FileStore, StoredFile } from '../stores/types.js';

/** Content part types that carry a file by `source`. */
const FILE_PARTS = new Set(['image', 'document', 'audio', 'video']);

/** The URL path a file is served at (and referenced by from prompts). */
export function fileUrl(basePath: string, threadId: string, fileId: string): string {
  return `${basePath}/threads/${encodeURIComponent(threadId)}/files/${encodeURIComponent(fileId)}`;
}

/** A file of a thread, by ids that are safe to look up (and to build a path from). */
export interface FileRef {
  threadId: string;
  fileId: string;
}

/**
 * The one rule for naming a file, used by the upload and download routes, the prompt
 * check, the agent's reader and the files directory: both ids are ids of the wire's
 * alphabet (`A-Z a-z 0-9 . _ : -`, never `.` or `..`), so no `/`, `\`, `..` or NUL ever
 * reaches a store or a path. Null for anything else.
 */
export function fileRef(threadId: string, fileId: string): FileRef | null {
  return isWireId(threadId) && isWireId(fileId) ? { threadId, fileId } : null;
}

/**
 * The file a part's URL names, when it is one of `threadId`'s file URLs (a path, or a full
 * URL whose path is one; a query such as `?token=` is ignored). Null otherwise — for a
 * malformed escape (`%E0%A4%A`) or an encoded separator (`..%2F<thread>%2F<file>`) too.
 */
export function fileRefOf(value: unknown, basePath: string, threadId: string): FileRef | null {
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
  if (rest === '' || rest.includes('/')) return null;
  let fileId: string;
  try {
    fileId = decodeURIComponent(rest);
  } catch {
    return null;
  }
  return fileRef(threadId, fileId);
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
    const ref = source?.type === 'url' ? fileRefOf(source.value, basePath, threadId) : null;
    // Marked before it is looked up: a sweep of unnamed uploads then either spares it or
    // took it already (and the prompt is refused).
    if (ref !== null && files) await files.markReferenced?.(ref.threadId, ref.fileId);
    const file = ref !== null && files ? await files.head(ref.threadId, ref.fileId) : null;
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
    const ref = fileRefOf(url, basePath, threadId);
    return ref === null ? null : files.get(ref.threadId, ref.fileId);
  };
}
