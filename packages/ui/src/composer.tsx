import type { Attachment } from '@resumable/hooks';
import type { AttachmentsController } from '@resumable/hooks/attachments';
import {
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { type AttachmentLabels, DEFAULT_ATTACHMENT_LABELS } from './attachment-labels.js';
import { cx } from './cx.js';
import { PaperclipIcon, SendIcon, StopIcon } from './icons.js';
import { type ChatLabels, useLabels, useMergedLabels } from './labels.js';
import { AttachmentTray, trayChunk } from './lazy-tray.js';

/** Props of {@link Composer}: what Send and Stop do, the chat's state, and its words. */
export interface ComposerProps {
  /**
   * Called with the trimmed text (and the uploaded files, when there are any); the textarea
   * and the files clear at once (the prompt is in the outbox).
   */
  onSend: (text: string, attachments?: Attachment[]) => void | Promise<void>;
  /** Called by the Stop button while a reply streams (cancels the run on the server). */
  onStop?: () => void | Promise<void>;
  /** A reply is streaming: the Send button becomes Stop. @default false */
  isStreaming?: boolean;
  /** The browser is offline: sending still works (queued) and a hint says so. @default false */
  offline?: boolean;
  /**
   * Interrupts waiting for an answer (approvals, questions) that a prompt sent now would
   * cancel (protocol.md, "a new prompt cancels"): while text is typed, a hint says so
   * before it is sent. @default 0
   */
  openInterrupts?: number;
  /** Disables the textarea, the attach button and Send (Stop stays usable). @default false */
  disabled?: boolean;
  /** Focus the textarea on mount. @default false */
  autoFocus?: boolean;
  /**
   * Files by picker, paste and drop (`useAttachments(controller)` from
   * `@resumable/hooks/attachments`). Send waits while one uploads or has failed.
   * @default undefined (no attach button)
   */
  attachments?: AttachmentsController | undefined;
  /**
   * Overrides of its words: `messageInput`, `placeholder`, `send`, `stop`, `stopHint`,
   * `offlineHint`, `promptCancelsInterrupts`, and the `AttachmentLabels` of its files.
   * What is left out keeps `DEFAULT_LABELS` and `DEFAULT_ATTACHMENT_LABELS`.
   */
  labels?: Partial<ChatLabels & AttachmentLabels>;
  /** Class names added to its `<form>` (which always has `rc-composer`). */
  className?: string;
}

/**
 * The prompt box. Enter sends, Shift+Enter adds a line, and Enter that confirms an IME
 * composition (Japanese, Chinese, Korean input) never sends.
 */
export function Composer({
  onSend,
  onStop,
  isStreaming = false,
  offline = false,
  openInterrupts = 0,
  disabled = false,
  autoFocus = false,
  attachments,
  labels: labelsProp,
  className,
}: ComposerProps) {
  const labels = useLabels(labelsProp);
  const fileLabels = useMergedLabels(DEFAULT_ATTACHMENT_LABELS, labelsProp);
  const [text, setText] = useState('');
  const [dragging, setDragging] = useState(false);
  const composing = useRef(false);
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  useAutosize(input, text);
  const hintId = useId();
  const cancelsId = useId();
  const cancels = openInterrupts > 0 && text.trim() !== '';
  const describedBy = [offline ? hintId : null, cancels ? cancelsId : null].filter(Boolean);
  const files = attachments?.status ?? 'empty';
  const waiting = files === 'uploading' || files === 'failed';
  const canSend =
    !disabled && !isStreaming && !waiting && (text.trim() !== '' || files === 'ready');

  const send = () => {
    if (!canSend) return;
    const value = text.trim();
    const uploaded = attachments?.attachments() ?? [];
    setText('');
    attachments?.clear();
    void (uploaded.length > 0 ? onSend(value, uploaded) : onSend(value));
    // A click on Send moved focus to the button: hand it back for the next message.
    input.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key !== 'Enter' || e.shiftKey) return;
    // `isComposing` is the standard; keyCode 229 covers Safari, which ends the composition
    // before the Enter keydown that confirmed it.
    if (composing.current || e.nativeEvent.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    send();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    send();
  };

  // Files pasted (a screenshot) or dropped go to the attachments; text pastes as usual.
  const onPaste = (e: ClipboardEvent) => {
    if (!attachments || e.clipboardData.files.length === 0) return;
    e.preventDefault();
    trayChunk.preload();
    attachments.add(Array.from(e.clipboardData.files));
  };
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  const dropZone = attachments
    ? {
        onDragOver: (e: DragEvent) => {
          if (!hasFiles(e)) return;
          e.preventDefault();
          trayChunk.preload();
          setDragging(true);
        },
        onDragLeave: (e: DragEvent) => {
          if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
        },
        onDrop: (e: DragEvent) => {
          if (e.dataTransfer.files.length === 0) return;
          e.preventDefault();
          setDragging(false);
          attachments.add(Array.from(e.dataTransfer.files));
        },
      }
    : {};

  return (
    <form
      className={cx('rc-composer', className)}
      onSubmit={onSubmit}
      data-offline={offline || undefined}
      data-dragging={dragging || undefined}
      {...dropZone}
    >
      {attachments ? <AttachmentTray attachments={attachments} labels={fileLabels} /> : null}
      {dragging ? (
        <p className="rc-composer__drop" aria-hidden="true">
          {fileLabels.dropFiles}
        </p>
      ) : null}
      <div className="rc-composer__box">
        {attachments ? (
          <>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              tabIndex={-1}
              data-part="file-input"
              onChange={(e) => {
                const chosen = Array.from(e.currentTarget.files ?? []);
                // Cleared, so picking the same file again after removing it fires a change.
                e.currentTarget.value = '';
                if (chosen.length > 0) attachments.add(chosen);
              }}
            />
            <button
              type="button"
              className="rc-composer__button rc-composer__button--attach"
              aria-label={fileLabels.attachFiles}
              title={fileLabels.attachFiles}
              disabled={disabled}
              // The tray's chunk comes while the person reaches for a file.
              onPointerEnter={trayChunk.preload}
              onFocus={trayChunk.preload}
              onClick={() => {
                trayChunk.preload();
                picker.current?.click();
              }}
            >
              <PaperclipIcon />
            </button>
          </>
        ) : null}
        <textarea
          ref={input}
          className="rc-composer__input"
          aria-label={labels.messageInput}
          aria-describedby={describedBy.length > 0 ? describedBy.join(' ') : undefined}
          placeholder={labels.placeholder}
          value={text}
          rows={1}
          disabled={disabled}
          // biome-ignore lint/a11y/noAutofocus: opt-in, for a page whose only job is the chat
          autoFocus={autoFocus}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onCompositionStart={() => {
            composing.current = true;
          }}
          onCompositionEnd={() => {
            composing.current = false;
          }}
        />
        {isStreaming ? (
          <button
            type="button"
            className="rc-composer__button rc-composer__button--stop"
            aria-label={labels.stop}
            title={labels.stopHint}
            onClick={() => {
              void onStop?.();
              // The Stop button is about to disappear: keep focus somewhere useful.
              input.current?.focus();
            }}
            disabled={!onStop}
          >
            <StopIcon />
          </button>
        ) : (
          <button
            type="submit"
            className="rc-composer__button"
            aria-label={labels.send}
            title={waiting ? fileLabels.waitForUploads : labels.send}
            disabled={!canSend}
          >
            <SendIcon />
          </button>
        )}
      </div>
      {cancels ? (
        <p id={cancelsId} className="rc-composer__hint" data-part="cancels-interrupts">
          {labels.promptCancelsInterrupts(openInterrupts)}
        </p>
      ) : null}
      {offline ? (
        <p id={hintId} className="rc-composer__hint">
          {labels.offlineHint}
        </p>
      ) : null}
    </form>
  );
}

/**
 * Grows the textarea with its content (up to the CSS max-height) where CSS
 * `field-sizing: content` is missing (Firefox, Safari at the time of writing).
 */
function useAutosize(ref: { current: HTMLTextAreaElement | null }, value: string): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-measure whenever the text changes
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || (typeof CSS !== 'undefined' && CSS.supports?.('field-sizing', 'content'))) return;
    el.style.height = 'auto';
    if (el.scrollHeight > 0) el.style.height = `${el.scrollHeight}px`;
  }, [ref, value]);
}
