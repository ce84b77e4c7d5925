// Loaded on demand by <MessageList> (a dynamic import, right after its first paint): the
// scrolling library is most of the transcript's weight and nothing on the first frame needs
// it (the list starts at its end by itself).
import { type RefObject, useLayoutEffect } from 'react';
import { useStickToBottom } from 'use-stick-to-bottom';
import { ArrowDownIcon } from './icons.js';

/** Goes to the end of the transcript (`'instant'`: no animation). */
export type ToBottom = (animation?: 'instant') => unknown;

export interface StickToBottomProps {
  scroll: RefObject<HTMLElement | null>;
  content: RefObject<HTMLElement | null>;
  /** Told how to go to the end, as that changes. */
  onChange(toBottom: ToBottom): void;
  /** The words of the button that goes back to the end (`labels.jumpToLatest`). */
  jumpLabel: string;
}

/**
 * use-stick-to-bottom bound to the transcript's elements: follows the content while the
 * reader is at its end, lets go when they scroll up — then shows "Jump to latest" (only this
 * part knows where the reader is, so the button comes with it).
 */
export function StickToBottom({ scroll, content, onChange, jumpLabel }: StickToBottomProps) {
  const { scrollRef, contentRef, isAtBottom, scrollToBottom } = useStickToBottom({
    initial: 'instant',
    // Instant, not a spring: a catch-up burst after a reconnect grows the content by many
    // screens at once, and a spring chasing it reads as the user leaving the bottom.
    resize: 'instant',
  });
  useLayoutEffect(() => {
    scrollRef(scroll.current);
    contentRef(content.current);
    return () => {
      scrollRef(null);
      contentRef(null);
    };
  }, [scroll, content, scrollRef, contentRef]);
  useLayoutEffect(() => onChange(scrollToBottom), [onChange, scrollToBottom]);
  return isAtBottom ? null : (
    <button
      type="button"
      className="rc-jump"
      onClick={() => {
        void scrollToBottom();
      }}
    >
      <ArrowDownIcon />
      <span>{jumpLabel}</span>
    </button>
  );
}
