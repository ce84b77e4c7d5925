// The framework-free core: no React import anywhere below this folder (a test proves it).

export type { ManualSignal, ResumableEnvironment, Signal, TabChannel } from './base/env.js';
export {
  browserOnlineSignal,
  browserVisibleSignal,
  createEnvironment,
  createManualSignal,
} from './base/env.js';
export type { ChatRecord, ChatSessionOptions, ChatState } from './chat/chat-session.js';
export { ChatSession, chatRecordKey } from './chat/chat-session.js';
export type { FilePart } from './chat/optimistic.js';
export { filePart, userContent } from './chat/optimistic.js';
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
} from './chat/types.js';
export type { ClientOptions } from './client/resumable-client.js';
export {
  defaultClient,
  disposeDefaultClients,
  ResumableClient,
} from './client/resumable-client.js';
// What a UI renders; the interrupt session and the tool runner (loaded on demand by the
// hook) are `@resumable/hooks/interrupts`.
export type { ChatInterrupt, InterruptStatus, ResumeAnswer } from './interrupts/chat-interrupts.js';
export type { BrowserTool, BrowserTools } from './interrupts/tool-declarations.js';
export { toolDeclarations } from './interrupts/tool-declarations.js';
export type { StreamOutcome, StreamRequest } from './net/event-stream.js';
export { readEventStream } from './net/event-stream.js';
export { parseRetryAfter } from './net/http.js';
export type {
  ApiOptions,
  HeadersOption,
  HistoryPage,
  StartedRun,
  ThreadRun,
} from './net/run-api.js';
export { RunApi } from './net/run-api.js';
export { mergeRecord, recordOf } from './records/record-write.js';
export type { RunRecord } from './records/run-record.js';
export { parseRecord, RECORD_VERSION, runRecordKey } from './records/run-record.js';
export type { IndexedDbStorageOptions, RecordStorage } from './records/storage.js';
export {
  createIndexedDbStorage,
  createMemoryStorage,
  defaultStorage,
  hasIndexedDb,
  withFallback,
} from './records/storage.js';
export type { BackoffOptions } from './retry/backoff.js';
export { backoffDelay, DEFAULT_BACKOFF } from './retry/backoff.js';
export { initialConnection } from './run/connection.js';
export type { AttachInput, RunSessionOptions, StartRunInput } from './run/run-session.js';
export { RunSession } from './run/run-session.js';
export type { RunSessionState } from './run/session-store.js';
