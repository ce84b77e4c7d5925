import type { FileStore, FileUpload, StoredFile } from '../types.js';

/** Uploaded files in this process's memory (the memory store's, and a test's). */
export class MemoryFiles implements FileStore {
  /** threadId → fileId → file; ids are data, so Maps. */
  private readonly threads = new Map<
    string,
    Map<string, { file: StoredFile; bytes: Uint8Array; referenced: boolean }>
  >();

  upload(threadId: string, fileId: string): FileUpload {
    const pieces: Uint8Array[] = [];
    let size = 0;
    return {
      write: async (bytes) => {
        pieces.push(bytes.slice());
        size += bytes.byteLength;
      },
      commit: async (file, maxThreadBytes) => {
        if (file.threadId !== threadId || file.fileId !== fileId || file.size !== size) {
          throw new RangeError(`upload ${threadId}/${fileId}: ${size} bytes written`);
        }
        const stored = this.put(file, pieces, maxThreadBytes);
        pieces.length = 0;
        return stored;
      },
      abort: async () => {
        pieces.length = 0;
      },
    };
  }

  /** Stores the file unless the thread's files would exceed `maxThreadBytes`. */
  private put(file: StoredFile, pieces: readonly Uint8Array[], maxThreadBytes: number): boolean {
    let files = this.threads.get(file.threadId);
    let used = 0;
    for (const stored of files?.values() ?? []) used += stored.file.size;
    if (used + file.size > maxThreadBytes) return false;
    if (!files) {
      files = new Map();
      this.threads.set(file.threadId, files);
    }
    const bytes = new Uint8Array(Buffer.concat(pieces, file.size));
    files.set(file.fileId, { file: { ...file }, bytes, referenced: false });
    return true;
  }

  async head(threadId: string, fileId: string): Promise<StoredFile | null> {
    const stored = this.threads.get(threadId)?.get(fileId);
    return stored ? { ...stored.file } : null;
  }

  async get(threadId: string, fileId: string) {
    const stored = this.threads.get(threadId)?.get(fileId);
    return stored ? { file: { ...stored.file }, bytes: stored.bytes.slice() } : null;
  }

  async removeThread(threadId: string): Promise<void> {
    this.threads.delete(threadId);
  }

  async remove(threadId: string, fileId: string): Promise<void> {
    this.threads.get(threadId)?.delete(fileId);
  }

  async markReferenced(threadId: string, fileId: string): Promise<void> {
    const stored = this.threads.get(threadId)?.get(fileId);
    if (stored) stored.referenced = true;
  }

  async sweepUnreferenced(createdBefore: number, limit: number): Promise<number> {
    let swept = 0;
    for (const files of this.threads.values()) {
      for (const [fileId, stored] of files) {
        if (swept >= limit) return swept;
        if (stored.referenced || stored.file.createdAt >= createdBefore) continue;
        files.delete(fileId);
        swept++;
      }
    }
    return swept;
  }
}
