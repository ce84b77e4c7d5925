// `@resumable/hooks`: what a page needs to paint a persisted conversation — the React
// hooks, the types, the storage and record helpers. The engine (sessions, transport,
// reconnect, fold, outbox…) is loaded by the hooks with `import()` on first use; its
// classes are public through `@resumable/hooks/core`.

export type { StoredRecords } from './core/chat/chat-record.js';
export { chatRecordKey } from './core/chat/chat-record.js';
export { filePart, userContent } from './core/chat/optimistic.js';
export type { StoredChat, StoredRun } from './core/client/first-paint.js';
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
