// The framework-free core: no React import anywhere below this folder (a test proves it).
export type { ApiOptions, HeadersOption, HistoryPage, StartedRun, ThreadRun } from './api.js';
export { RunApi } from './api.js';
export type { BackoffOptions } from './backoff.js';
export { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export type { ChatRecord, ChatSessionOptions, ChatState } from './chat.js';
export { ChatSession, chatRecordKey } from './chat.js';
export type { ManualSignal, ResumableEnvironment, Signal, TabChannel } from './env.js';
export {
  browserOnlineSignal,
  browserVisibleSignal,
  createEnvironment,
  createManualSignal,
} from './env.js';
export { parseRetryAfter } from './http.js';
// What a UI renders; the interrupt session and the tool runner (loaded on demand by the
// hook) are `@resumable/hooks/interrupts`.
export type { ChatInterrupt, InterruptStatus, ResumeAnswer } from './interrupts.js';
export type { FilePart } from './optimistic.js';
export { filePart, userContent } from './optimistic.js';
export type { RunRecord } from './record.js';
export { parseRecord, RECORD_VERSION, runRecordKey } from './record.js';
export { mergeRecord, recordOf } from './record-write.js';
export type { ClientOptions } from './registry.js';
export { defaultClient, disposeDefaultClients, ResumableClient } from './registry.js';
export { initialConnection } from './run-facts.js';
export type { AttachInput, RunSessionOptions, StartRunInput } from './session.js';
export { RunSession } from './session.js';
export type { IndexedDbStorageOptions, RecordStorage } from './storage.js';
export {
  createIndexedDbStorage,
  createMemoryStorage,
  defaultStorage,
  hasIndexedDb,
  withFallback,
} from './storage.js';
export type { RunSessionState } from './store.js';
export type { BrowserTool, BrowserTools } from './tool-declarations.js';
export { toolDeclarations } from './tool-declarations.js';
export type { StreamOutcome, StreamRequest } from './transport.js';
export { readEventStream } from './transport.js';
export type {
  Attachment,
  BranchInfo,
  ChatController,
  ChatMessage,
  ConnectionInfo,
  ConnectionPhase,
  InterruptControls,
  OutboxItem,
  SendOptions,
  UploadOptions,
} from './types.js';
