import {
  type FormEvent,
  type KeyboardEvent,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { cx } from './cx.js';
import { SendIcon, StopIcon } from './icons.js';
import { type ChatLabels, useLabels } from './labels.js';

export interface ComposerProps {
  /** Called with the trimmed text; the textarea clears at once (the prompt is in the outbox). */
  onSend: (text: string) => void | Promise<void>;
  /** Called by the Stop button while a reply streams (cancels the run on the server). */
  onStop?: () => void | Promise<void>;
  /** A reply is streaming: the Send button becomes Stop. @default false */
  isStreaming?: boolean;
  /** The browser is offline: sending still works (queued) and a hint says so. @default false */
  offline?: boolean;
  /** @default false */
  disabled?: boolean;
  /** Focus the textarea on mount. @default false */
  autoFocus?: boolean;
  labels?: Partial<ChatLabels>;
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
  disabled = false,
  autoFocus = false,
  labels: labelsProp,
  className,
}: ComposerProps) {
  const labels = useLabels(labelsProp);
  const [text, setText] = useState('');
  const composing = useRef(false);
  const input = useRef<HTMLTextAreaElement>(null);
  useAutosize(input, text);
  const hintId = useId();
  const canSend = !disabled && !isStreaming && text.trim() !== '';

  const send = () => {
    if (!canSend) return;
    const value = text.trim();
    setText('');
    void onSend(value);
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

  return (
    <form
      className={cx('rc-composer', className)}
      onSubmit={onSubmit}
      data-offline={offline || undefined}
    >
      <div className="rc-composer__box">
        <textarea
          ref={input}
          className="rc-composer__input"
          aria-label={labels.messageInput}
          aria-describedby={offline ? hintId : undefined}
          placeholder={labels.placeholder}
          value={text}
          rows={1}
          disabled={disabled}
          // biome-ignore lint/a11y/noAutofocus: opt-in, for a page whose only job is the chat
          autoFocus={autoFocus}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
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
            title={labels.send}
            disabled={!canSend}
          >
            <SendIcon />
          </button>
        )}
      </div>
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
