// `@resumable/hooks`: what a page needs to paint a persisted conversation — the React
// hooks, the types, the storage and record helpers. The engine (sessions, transport,
// reconnect, fold, outbox…) is loaded by the hooks with `import()` on first use; its
// classes are public through `@resumable/hooks/core`.

export { filePart, userContent } from './core/chat/optimistic.js';
export { DEFAULT_ENGINE_TIMEOUT_MS } from './core/client/client-handle.js';
export type { StoredChat, StoredRecords, StoredRun } from './core/client/first-paint.js';
export { chatRecordKey } from './core/conversation/state.js';
export type * from './core/index.js';
export { toolDeclarations } from './core/interrupts/tool-declarations.js';
export { parseRecord, RECORD_VERSION, runRecordKey } from './core/records/run-record.js';
export {
  createIndexedDbStorage,
  createMemoryStorage,
  defaultStorage,
  hasIndexedDb,
  withFallback,
} from './core/records/storage.js';
export { initialConnection } from './core/run/connection.js';
export * from './react/index.js';
