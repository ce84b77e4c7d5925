// Loaded on demand by <MessageList> (a dynamic import, right after its first paint): the
// scrolling library is most of the transcript's weight and nothing on the first frame needs
// it (the list starts at its end by itself).
import { type RefObject, useLayoutEffect } from 'react';
import { useStickToBottom } from 'use-stick-to-bottom';

/** Goes to the end of the transcript (`'instant'`: no animation). */
export type ToBottom = (animation?: 'instant') => unknown;

export interface StickToBottomProps {
  scroll: RefObject<HTMLElement | null>;
  content: RefObject<HTMLElement | null>;
  /** Told whether the reader is at the end, and how to go there, as that changes. */
  onChange(isAtBottom: boolean, toBottom: ToBottom): void;
}

/**
 * use-stick-to-bottom bound to the transcript's elements: follows the content while the
 * reader is at its end, lets go when they scroll up. Renders nothing.
 */
export function StickToBottom({ scroll, content, onChange }: StickToBottomProps) {
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
  useLayoutEffect(
    () => onChange(isAtBottom, scrollToBottom),
    [onChange, isAtBottom, scrollToBottom],
  );
  return null;
}
