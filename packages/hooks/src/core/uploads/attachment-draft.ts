import { ResumableError } from '@resumable/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { DEFAULT_ATTACHMENT_LIMITS } from '../base/defaults.js';
import type { Attachment } from '../net/attachment.js';
import type { UploadOptions } from '../net/uploads.js';
import { fileName } from '../net/uploads.js';

/**
 * The composer's files before a prompt is sent: checked against the limits, uploaded at
 * once with progress, removable (an upload in flight is aborted), retried after a failure.
 * Framework-free; `useAttachments` is its React adapter.
 */

export type DraftPhase = 'uploading' | 'uploaded' | 'failed';

/** A file of the draft: its bytes, where its upload stands, and what the prompt will reference. */
export interface DraftFile {
  /** Local id (React key, `remove(id)`). */
  id: string;
  /** The file's name ('' for a Blob without one). */
  name: string;
  /** Bytes. */
  size: number;
  /** The browser's type for the file ('' when it has none). */
  type: string;
  /** The bytes, kept for a retry and for previews. */
  file: Blob;
  /** Where its upload stands. */
  phase: DraftPhase;
  /** Bytes sent so far. */
  loaded: number;
  /** Why the upload failed (`failed`), else null. */
  error: ResumableError | null;
  /** What the prompt references, once uploaded. */
  attachment: Attachment | null;
}

/** What a prompt's files may be; a file past one is refused before any byte goes out. */
export interface AttachmentLimits {
  /** Largest single file, in bytes. @default 10485760 (10 MiB) */
  maxFileBytes?: number;
  /** All files of one prompt together, in bytes. @default 26214400 (25 MiB) */
  maxTotalBytes?: number;
  /** Files per prompt. @default 10 */
  maxFiles?: number;
}

/** Which limit a refused file broke. */
export type RejectReason = 'file_too_large' | 'total_too_large' | 'too_many_files';

/** A file refused before any byte went out; `limit` is the limit it broke. */
export interface RejectedFile {
  /** The file's name. */
  name: string;
  /** Its bytes. */
  size: number;
  /** The limit it broke. */
  reason: RejectReason;
  /** That limit's value (bytes, or files for `too_many_files`). */
  limit: number;
  /** The same, as the typed error (`payload_too_large`, or `bad_request` for the count). */
  error: ResumableError;
}

/** The draft as `AttachmentDraft.store` holds it. */
export interface AttachmentDraftState {
  /** The files attached, in the order they were added. */
  files: readonly DraftFile[];
  /** The files the last `add` refused (replaced by the next `add`, cleared by `clear`). */
  rejected: readonly RejectedFile[];
}

/** empty: nothing attached; uploading / failed: Send waits; ready: every file uploaded. */
export type DraftStatus = 'empty' | 'uploading' | 'failed' | 'ready';

/** Where the draft stands as a whole (what Send waits for). */
export function draftStatus(state: AttachmentDraftState): DraftStatus {
  if (state.files.length === 0) return 'empty';
  if (state.files.some((f) => f.phase === 'failed')) return 'failed';
  if (state.files.some((f) => f.phase === 'uploading')) return 'uploading';
  return 'ready';
}

/** What happens to a file's upload: progress, its answer, a failure, or a retry. */
export type DraftEvent =
  | { type: 'progress'; loaded: number }
  | { type: 'uploaded'; attachment: Attachment }
  | { type: 'failed'; error: ResumableError }
  | { type: 'retry' };

/** One file's phases: uploading → uploaded | failed; failed → uploading (retry). */
export function transition(file: DraftFile, event: DraftEvent): DraftFile {
  switch (file.phase) {
    case 'uploading':
      if (event.type === 'progress') return { ...file, loaded: Math.min(event.loaded, file.size) };
      if (event.type === 'uploaded') {
        return { ...file, phase: 'uploaded', loaded: file.size, attachment: event.attachment };
      }
      if (event.type === 'failed') return { ...file, phase: 'failed', error: event.error };
      return file;
    case 'failed':
      return event.type === 'retry'
        ? { ...file, phase: 'uploading', loaded: 0, error: null }
        : file;
    case 'uploaded':
      return file;
  }
}

/** Sizes as people read them: `512 B`, `1.5 KB`, `10 MB` (1024-based). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text =
    value >= 10 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}

function rejection(name: string, size: number, reason: RejectReason, limit: number): RejectedFile {
  const message =
    reason === 'file_too_large'
      ? `${name} is ${formatBytes(size)}; a file may be at most ${formatBytes(limit)}`
      : reason === 'total_too_large'
        ? `${name} would bring the attachments over ${formatBytes(limit)} in total`
        : `${name} is one file too many; at most ${limit} files per message`;
  const code = reason === 'too_many_files' ? 'bad_request' : 'payload_too_large';
  return { name, size, reason, limit, error: new ResumableError(code, message) };
}

/** How the draft uploads a file (`ChatController.upload`, or an app's own). */
export type UploadFn = (file: Blob, options: UploadOptions) => Promise<Attachment>;

/**
 * A prompt's attachments without React: files checked against the limits, uploaded at once
 * through `upload` with progress, removable, retried after a failure. `useAttachments`
 * adapts it.
 */
export class AttachmentDraft {
  /** The draft's state (zustand): subscribe to follow it. */
  readonly store: StoreApi<AttachmentDraftState>;
  private readonly limits: Required<AttachmentLimits>;
  /** In-flight uploads by local id (bounded by `maxFiles`). */
  private readonly inFlight = new Map<string, AbortController>();
  private count = 0;

  constructor(
    private readonly upload: UploadFn,
    limits: AttachmentLimits = {},
  ) {
    this.limits = { ...DEFAULT_ATTACHMENT_LIMITS, ...limits };
    this.store = createStore<AttachmentDraftState>()(() => ({ files: [], rejected: [] }));
  }

  /** The draft now. */
  getState(): AttachmentDraftState {
    return this.store.getState();
  }

  /**
   * Checks each file against the limits (in order: count, size, total with the files
   * already attached), starts uploading those that pass, and returns those refused.
   */
  add(files: Iterable<Blob>): RejectedFile[] {
    const { maxFiles, maxFileBytes, maxTotalBytes } = this.limits;
    const accepted: DraftFile[] = [];
    const rejected: RejectedFile[] = [];
    const current = this.getState().files;
    let count = current.length;
    let total = current.reduce((sum, f) => sum + f.size, 0);
    for (const file of files) {
      const name = fileName(file);
      if (count >= maxFiles) {
        rejected.push(rejection(name, file.size, 'too_many_files', maxFiles));
      } else if (file.size > maxFileBytes) {
        rejected.push(rejection(name, file.size, 'file_too_large', maxFileBytes));
      } else if (total + file.size > maxTotalBytes) {
        rejected.push(rejection(name, file.size, 'total_too_large', maxTotalBytes));
      } else {
        count++;
        total += file.size;
        this.count++;
        accepted.push({
          id: `file-${this.count}`,
          name,
          size: file.size,
          type: file.type,
          file,
          phase: 'uploading',
          loaded: 0,
          error: null,
          attachment: null,
        });
      }
    }
    this.store.setState({ files: [...current, ...accepted], rejected });
    for (const file of accepted) this.start(file);
    return rejected;
  }

  /** Takes a file back (aborting its upload). */
  remove(id: string): void {
    this.inFlight.get(id)?.abort();
    this.inFlight.delete(id);
    const files = this.getState().files;
    if (files.some((f) => f.id === id)) {
      this.store.setState({ files: files.filter((f) => f.id !== id) });
    }
  }

  /** Uploads a failed file again. */
  retry(id: string): void {
    const file = this.getState().files.find((f) => f.id === id);
    if (file?.phase !== 'failed') return;
    this.apply(id, { type: 'retry' });
    this.start(file);
  }

  /** Empties the draft (after the prompt went into the outbox), aborting what is in flight. */
  clear(): void {
    this.abortAll();
    this.store.setState({ files: [], rejected: [] });
  }

  /** The uploaded files, in the order they were added (what `send` references). */
  attachments(): Attachment[] {
    return this.getState().files.flatMap((f) => (f.attachment ? [f.attachment] : []));
  }

  /** Aborts uploads in flight (unmount); the draft stays usable. */
  abortAll(): void {
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
  }

  private apply(id: string, event: DraftEvent): void {
    const files = this.getState().files;
    const index = files.findIndex((f) => f.id === id);
    if (index < 0) return;
    const next = transition(files[index]!, event);
    if (next === files[index]) return;
    this.store.setState({ files: files.map((f, i) => (i === index ? next : f)) });
  }

  private start(file: DraftFile): void {
    const controller = new AbortController();
    this.inFlight.set(file.id, controller);
    const mine = () => this.inFlight.get(file.id) === controller;
    const upload = async () =>
      this.upload(file.file, {
        name: file.name,
        signal: controller.signal,
        onProgress: (loaded) => {
          if (mine()) this.apply(file.id, { type: 'progress', loaded });
        },
      });
    upload().then(
      (attachment) => {
        if (!mine()) return;
        this.inFlight.delete(file.id);
        this.apply(file.id, { type: 'uploaded', attachment });
      },
      (error: unknown) => {
        if (!mine()) return;
        this.inFlight.delete(file.id);
        const typed =
          error instanceof ResumableError
            ? error
            : new ResumableError('network', String((error as Error)?.message ?? error));
        this.apply(file.id, { type: 'failed', error: typed });
      },
    );
  }
}
