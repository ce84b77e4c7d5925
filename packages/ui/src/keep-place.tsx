import { type RefObject, useLayoutEffect, useRef } from 'react';
import type { ChatMessage } from './controller-types.js';

/**
 * When a page of history is prepended, keeps the messages the reader was looking at in place
 * (the content above grew by exactly the page's height). Done by hand rather than by
 * `overflow-anchor`, which Safari lacks and which would fight the stick-to-bottom scrolling.
 * The height before the page is read only while a page is loading (`isLoadingOlder`): reading
 * `scrollHeight` forces a layout of the whole transcript, and after every commit (every
 * streamed token) that was a third of what a streaming reply cost the page. Renders nothing;
 * in the transcript's parts chunk (a list has older history to load only after its first
 * frame), mounted by `<MessageList>` once the chunk is there.
 */
export function KeepPlaceOnPrepend({
  scroll: scrollRef,
  messages,
  isLoadingOlder,
}: {
  scroll: RefObject<HTMLElement | null>;
  messages: readonly ChatMessage[];
  isLoadingOlder: boolean;
}): null {
  // The height is null when it was not read while loading: no page is expected.
  const before = useRef<{ firstId: string | undefined; height: number | null }>({
    firstId: undefined,
    height: null,
  });
  const firstId = messages[0]?.id;
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const prev = before.current;
    if (
      prev.height !== null &&
      prev.firstId !== undefined &&
      firstId !== prev.firstId &&
      messages.some((m) => m.id === prev.firstId)
    ) {
      el.scrollTop += el.scrollHeight - prev.height;
    }
    before.current = { firstId, height: isLoadingOlder ? el.scrollHeight : null };
  });
  return null;
}
