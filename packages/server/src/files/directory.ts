import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isWireId, ResumableError } from '@resumable/protocol';
import type { FileStore, FileUpload, StoredFile } from '../stores/types.js';
import { fileRef } from './references.js';

/** The folder uploads are written to as they arrive: `+` is in no id, so in no thread's. */
const UPLOADS = '+uploads';

/**
 * Uploaded files in a directory: `<dir>/<threadId>/<fileId>` holds the bytes and
 * `<fileId>.json` the description. No path is built from an id `fileRef` refuses (the
 * routes' rule: a safe alphabet, never `.` or `..`): such a file is not found, and such a
 * thread has nothing to delete. An upload is written to `<dir>/+uploads/<threadId>/<fileId>`
 * as it arrives (`+` is outside the ids' alphabet: no thread's folder) and moved into its
 * thread at commit. The per-thread total is checked and the file moved one commit at a
 * time per thread, in this process; several instances that share the directory may
 * overshoot the total by their concurrent uploads. It keeps no record of which prompt named
 * a file, so committed files stay until their thread is deleted; what it sweeps is staged
 * uploads a crash left behind in `+uploads`.
 */
export class DirectoryFiles implements FileStore {
  /** The commit in progress per thread: the next one waits for it. */
  private readonly writing = new Map<string, Promise<unknown>>();

  /** Nothing is read or made until the first upload; the directory is made then. */
  constructor(
    /** Where the files are: `<directory>/<threadId>/<fileId>` (and `.json` beside it). */
    readonly directory: string,
  ) {}

  /** {@inheritDoc FileStore.upload} */
  upload(threadId: string, fileId: string): FileUpload {
    if (!fileRef(threadId, fileId)) {
      throw new ResumableError(
        'bad_request',
        'a file is named by the ids of its thread and itself',
      );
    }
    const staged = join(this.directory, UPLOADS, threadId, fileId);
    let handle: FileHandle | null = null;
    let size = 0;
    const opened = async () => {
      if (!handle) {
        await mkdir(dirname(staged), { recursive: true });
        handle = await open(staged, 'w');
      }
      return handle;
    };
    const close = async () => {
      const current = handle;
      handle = null;
      await current?.close();
    };
    return {
      write: async (bytes) => {
        const file = await opened();
        await file.write(bytes);
        size += bytes.byteLength;
      },
      commit: async (file, maxThreadBytes) => {
        if (file.threadId !== threadId || file.fileId !== fileId || file.size !== size) {
          throw new RangeError(`upload ${threadId}/${fileId}: ${size} bytes written`);
        }
        await opened();
        await close();
        return this.oneAtATime(threadId, () => this.commit(file, staged, maxThreadBytes));
      },
      abort: async () => {
        await close();
        await rm(staged, { force: true });
      },
    };
  }

  /**
   * Deletes up to `limit` staged uploads last written before `createdBefore`: what a process
   * that stopped mid-upload left in `+uploads` (a live upload writes as it arrives, and the
   * server's body timeouts end one that stops, so none is that old). Their emptied thread
   * folders go too. Resolves how many files it deleted.
   */
  async sweepUnreferenced(createdBefore: number, limit: number): Promise<number> {
    const root = join(this.directory, UPLOADS);
    let removed = 0;
    for (const threadId of (await this.io(() => readdir(root))) ?? []) {
      const folder = join(root, threadId);
      const names = (await this.io(() => readdir(folder))) ?? [];
      let left = names.length;
      for (const name of names) {
        if (removed >= limit) return removed;
        const info = await this.io(() => stat(join(folder, name)));
        if (info && info.mtimeMs >= createdBefore) continue;
        await this.io(() => rm(join(folder, name), { force: true }));
        left--;
        if (info) removed++;
      }
      // A folder an upload has just made its own again is not empty: rmdir refuses it.
      if (left === 0) await rmdir(folder).catch(() => {});
    }
    return removed;
  }

  /** Runs `op` after the thread's commit in progress, if any. */
  private async oneAtATime<T>(threadId: string, op: () => Promise<T>): Promise<T> {
    const previous = this.writing.get(threadId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(op);
    this.writing.set(threadId, next);
    try {
      return await next;
    } finally {
      if (this.writing.get(threadId) === next) this.writing.delete(threadId);
    }
  }

  /** {@inheritDoc FileStore.head} */
  async head(threadId: string, fileId: string): Promise<StoredFile | null> {
    if (!fileRef(threadId, fileId)) return null;
    const text = await this.io(() => readFile(this.path(threadId, `${fileId}.json`), 'utf8'));
    return text === null ? null : (JSON.parse(text) as StoredFile);
  }

  /** {@inheritDoc FileStore.get} */
  async get(threadId: string, fileId: string) {
    const file = await this.head(threadId, fileId);
    if (!file) return null;
    const bytes = await this.io(() => readFile(this.path(threadId, fileId)));
    return bytes === null ? null : { file, bytes: new Uint8Array(bytes) };
  }

  /** {@inheritDoc FileStore.removeThread} */
  async removeThread(threadId: string): Promise<void> {
    // `fileRef`'s rule for the thread's id: `..` here would be the directory's parent.
    if (!isWireId(threadId)) return;
    await rm(this.path(threadId), { recursive: true, force: true });
  }

  /** {@inheritDoc FileStore.remove} */
  async remove(threadId: string, fileId: string): Promise<void> {
    if (!fileRef(threadId, fileId)) return;
    // The description first: bytes without one are never read.
    await rm(this.path(threadId, `${fileId}.json`), { force: true });
    await rm(this.path(threadId, fileId), { force: true });
  }

  private async commit(file: StoredFile, staged: string, max: number): Promise<boolean> {
    const dir = this.path(file.threadId);
    const names = (await this.io(() => readdir(dir))) ?? [];
    let used = 0;
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const text = await this.io(() => readFile(join(dir, name), 'utf8'));
      if (text !== null) used += (JSON.parse(text) as StoredFile).size;
    }
    if (used + file.size > max) {
      await rm(staged, { force: true });
      return false;
    }
    await mkdir(dir, { recursive: true });
    // The bytes first: a description always names bytes that exist.
    await rename(staged, join(dir, file.fileId));
    await writeFile(join(dir, `${file.fileId}.json`), JSON.stringify(file));
    return true;
  }

  private path(threadId: string, name?: string): string {
    return name === undefined
      ? join(this.directory, threadId)
      : join(this.directory, threadId, name);
  }

  /** A missing file is null; any other failure is `store_unavailable`. */
  private async io<T>(op: () => Promise<T>): Promise<T | null> {
    try {
      return await op();
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return null;
      throw new ResumableError('store_unavailable', `file directory: ${String(error)}`, {
        cause: error,
      });
    }
  }
}
