import type { FileStore, StoredFile } from './types.js';

/** Uploaded files in this process's memory (the memory store's, and a test's). */
export class MemoryFiles implements FileStore {
  /** threadId → fileId → file; ids are data, so Maps. */
  private readonly threads = new Map<
    string,
    Map<string, { file: StoredFile; bytes: Uint8Array }>
  >();

  async put(file: StoredFile, bytes: Uint8Array, maxThreadBytes: number): Promise<boolean> {
    let files = this.threads.get(file.threadId);
    let used = 0;
    for (const stored of files?.values() ?? []) used += stored.file.size;
    if (used + file.size > maxThreadBytes) return false;
    if (!files) {
      files = new Map();
      this.threads.set(file.threadId, files);
    }
    files.set(file.fileId, { file: { ...file }, bytes: bytes.slice() });
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
}
