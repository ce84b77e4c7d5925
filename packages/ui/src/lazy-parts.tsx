import type { BranchNavProps } from './branch-nav.js';
import { chunk, useChunk } from './lazy-chunk.js';

/**
 * What a transcript's first frame does not draw, in one chunk fetched when a `<MessageList>`
 * mounts (or one of these parts is first drawn elsewhere): the parts not every conversation
 * has — tool-call cards, ‹ n / m › of a message's versions, a message's files, keeping the
 * reader's place when older history loads — and what the reply's live region says. Their
 * wrappers (`<ToolCall>`, `<MessageFiles>`, `<BranchNav>`, `<ReplyAnnouncer>`) work out what
 * to draw and stay in the first paint; the chunk only draws it. `<MessageList>` holds a
 * transcript's first frame until the chunk is there (`useHeldForParts`), so a part never
 * appears after the messages around it; drawn on its own, a part shows nothing until then.
 */
export const partsChunk = chunk(() => import('./deferred-parts.js'));

/** `<BranchNav>`, loaded with the transcript's parts (`partsChunk`). */
export function BranchNav(props: BranchNavProps) {
  const parts = useChunk(partsChunk);
  return parts ? <parts.BranchNav {...props} /> : null;
}
