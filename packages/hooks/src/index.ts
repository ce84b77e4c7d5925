// `@resumable/hooks`: what a page needs to paint a persisted conversation — the React
// hooks, the types, the storage and record helpers. The engine (sessions, transport,
// reconnect, fold, outbox…) is loaded by the hooks with `import()` on first use; its
// classes are public through `@resumable/hooks/core`.

export { chatRecordKey } from './core/chat-state.js';
export type { StoredChat, StoredRecords, StoredRun } from './core/first-paint.js';
export type * from './core/index.js';
export { DEFAULT_ENGINE_TIMEOUT_MS } from './core/lazy-client.js';
export { filePart, userContent } from './core/optimistic.js';
export { parseRecord, RECORD_VERSION, runRecordKey } from './core/record.js';
export { initialConnection } from './core/run-facts.js';
export {
  createIndexedDbStorage,
  createMemoryStorage,
  defaultStorage,
  hasIndexedDb,
  withFallback,
} from './core/storage.js';
export { toolDeclarations } from './core/tool-declarations.js';
export * from './react/index.js';
