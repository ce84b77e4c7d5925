import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { BranchNavProps } from './branch-nav.js';
import { chunk, useChunk } from './lazy-chunk.js';

/**
 * What a transcript's first frame does not draw, in one chunk fetched when a `<MessageList>`
 * mounts (or one of these parts is first drawn elsewhere): the parts not every conversation
 * has — tool-call cards, ‹ n / m › of a message's versions, a message's files, keeping the
 * reader's place when older history loads — and what the reply's live region says. Their
 * wrappers (`<ToolCall>`, `<MessageFiles>`, `<BranchNav>`, `<ReplyAnnouncer>`) work out what
 * to draw and stay in the first paint; the chunk only draws it. `<MessageList>` and
 * `<TurnParts>` hold their first frame until the chunk is there (`useHeldForParts`), so a part
 * never appears after the messages around it; drawn on its own, a part shows nothing until then.
 */
export const partsChunk = chunk(() => import('./deferred-parts.js'));

/** `<BranchNav>`, loaded with the transcript's parts (`partsChunk`). */
export function BranchNav(props: BranchNavProps) {
  const parts = useChunk(partsChunk);
  return parts ? <parts.BranchNav {...props} /> : null;
}

/** How long a first frame waits for the parts' chunk before it draws without them. */
const PARTS_WAIT_MS = 1000;

/**
 * True while a first frame should wait for the parts' chunk (fetched here, on mount): it would
 * draw one of them (`needed`, asked only while it matters), the chunk is not there, and
 * nothing (`content`) has been drawn yet — as a transcript waits for its persisted messages,
 * so a restored tool call, ‹ 2 / 2 › or file never appears after the messages around it. Once
 * drawn, it never waits again (later parts come as the chunk does), and never longer than
 * PARTS_WAIT_MS from mount: a chunk that cannot load leaves them out.
 */
export function useHeldForParts(content: boolean, needed: () => boolean): boolean {
  const parts = useChunk(partsChunk);
  const [waited, setWaited] = useState(false);
  const drawn = useRef(false);
  useEffect(() => {
    const id = setTimeout(() => setWaited(true), PARTS_WAIT_MS);
    return () => clearTimeout(id);
  }, []);
  const held = !parts && !waited && !drawn.current && needed();
  useLayoutEffect(() => {
    if (!held && content) drawn.current = true;
  });
  return held;
}
