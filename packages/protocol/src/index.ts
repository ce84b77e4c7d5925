// `@resumable/protocol`: the wire contract (docs/protocol.md) as code. Every file re-exported
// whole here holds public names only; the fold's own parts (`copyRunState`, `NO_CHUNKS`) are
// in files of their own that it does not re-export. `export *`, not a list: a named re-export
// of a name the hooks' first paint uses puts the whole barrel in it (esbuild's code
// splitting: 10.0 -> 18.2 KB gz).
// The error list, the class, reading a server's error and the action per code: apart, so a
// bundle that needs only the class (a client's first paint) carries only the class.
export * from './error-actions.js';
export * from './error-body.js';
export * from './error-codes.js';
export * from './errors.js';
export * from './events.js';
export * from './fold.js';
export * from './fold-with-patch.js';
export { IdIndex } from './id-index.js';
export * from './interrupts.js';
export * from './offsets.js';
export * from './outcome.js';
export type { JsonPatcher } from './patch.js';
export { applyJsonPatch } from './patch.js';
export * from './resume.js';
export * from './run-error-codes.js';
export * from './run-id.js';
export * from './snapshot.js';
export * from './sse.js';
export * from './state.js';
export * from './thread-events.js';
// Whether a message from a server can be folded or shown (its id, role and tool calls);
// whether a parsed value is a plain object (one check for every reader of stored JSON).
export * from './validate.js';
