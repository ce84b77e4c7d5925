export * from './errors.js';
export * from './events.js';
export * from './fold.js';
export * from './interrupts.js';
export * from './offsets.js';
export { applyJsonPatch } from './patch.js';
export * from './snapshot.js';
export * from './sse.js';
export * from './state.js';
