import { ResumableError } from '@resumable/protocol';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { ChatController } from '../core/client/controller.js';
import type { Attachment } from '../core/net/attachment.js';
import {
  AttachmentDraft,
  type AttachmentLimits,
  type DraftFile,
  type DraftStatus,
  draftStatus,
  type RejectedFile,
} from '../core/uploads/attachment-draft.js';

/** What `useAttachments` returns: the draft's files and what a composer does with them. */
export interface AttachmentsController {
  /** False when the controller has no `upload` (the composer hides its attach button). */
  enabled: boolean;
  /** The files attached, with their upload's progress. */
  files: readonly DraftFile[];
  /** The files the last `add` refused, with the limit each broke. */
  rejected: readonly RejectedFile[];
  /** `uploading` and `failed` hold Send back; `ready` and `empty` let it go. */
  status: DraftStatus;
  /** Attaches files and starts their uploads; returns the ones the limits refused. */
  add(files: Iterable<Blob>): RejectedFile[];
  /** Takes a file back (aborting its upload). */
  remove(id: string): void;
  /** Uploads a failed file again. */
  retry(id: string): void;
  /** Empties the draft (after sending), aborting what is in flight. */
  clear(): void;
  /** The uploaded files, for `send(text, { attachments })`. */
  attachments(): Attachment[];
}

/**
 * The composer's attachments for a chat: files checked against `limits`, uploaded at once
 * through `controller.upload` with progress, removable, retried after a failure. Uploads
 * still in flight are aborted on unmount.
 */
export function useAttachments(
  controller: Pick<ChatController, 'upload'>,
  limits?: AttachmentLimits,
): AttachmentsController {
  // The draft lives as long as the component; it always calls the latest `upload`.
  const upload = useRef(controller.upload);
  upload.current = controller.upload;
  const [draft] = useState(
    () =>
      new AttachmentDraft(async (file, options) => {
        const fn = upload.current;
        if (!fn) throw new ResumableError('bad_request', 'this chat cannot upload files');
        return fn(file, options);
      }, limits),
  );
  useEffect(() => () => draft.abortAll(), [draft]);
  const state = useStore(draft.store);
  const add = useCallback((files: Iterable<Blob>) => draft.add(files), [draft]);
  const remove = useCallback((id: string) => draft.remove(id), [draft]);
  const retry = useCallback((id: string) => draft.retry(id), [draft]);
  const clear = useCallback(() => draft.clear(), [draft]);
  const attachments = useCallback(() => draft.attachments(), [draft]);
  const enabled = controller.upload !== undefined;
  return useMemo(
    () => ({
      enabled,
      files: state.files,
      rejected: state.rejected,
      status: draftStatus(state),
      add,
      remove,
      retry,
      clear,
      attachments,
    }),
    [enabled, state, add, remove, retry, clear, attachments],
  );
}
