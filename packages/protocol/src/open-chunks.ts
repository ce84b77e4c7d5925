/**
 * The `*_CHUNK` blocks a run's state holds open. Apart from state.ts so that the empty
 * value the fold shares (`NO_CHUNKS`) stays the fold's own: the package entry exports the
 * type only.
 */

/** Which `*_CHUNK` blocks are open: the message / tool call ids their id-less chunks extend. */
export type OpenChunks = Readonly<{
  /** The message an id-less `TEXT_MESSAGE_CHUNK` extends. */
  text?: string;
  /** The tool call an id-less `TOOL_CALL_CHUNK` extends. */
  toolCall?: string;
  /** The reasoning message an id-less `REASONING_MESSAGE_CHUNK` extends. */
  reasoning?: string;
}>;

/** The `openChunks` of a state with no chunk block open (shared, frozen). */
export const NO_CHUNKS: OpenChunks = Object.freeze({});
