/**
 * The `*_CHUNK` blocks a run's state holds open. Apart from state.ts so that the empty
 * value the fold shares (`NO_CHUNKS`) stays the fold's own: the package entry exports the
 * type only.
 */

/** Which `*_CHUNK` blocks are open: the message / tool call ids their id-less chunks extend. */
export type OpenChunks = Readonly<{ text?: string; toolCall?: string; reasoning?: string }>;

/** The `openChunks` of a state with no chunk block open (shared, frozen). */
export const NO_CHUNKS: OpenChunks = Object.freeze({});
