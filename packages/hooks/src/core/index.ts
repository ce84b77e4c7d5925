// The framework-free core: no React import anywhere below this folder (a test proves it).

export { DEFAULT_BACKOFF } from './base/defaults.js';
export type { ManualSignal, ResumableEnvironment, Signal, TabChannel } from './base/env.js';
export {
  browserOnlineSignal,
  browserVisibleSignal,
  createEnvironment,
  createManualSignal,
} from './base/env.js';
export type { ChatRecord } from './chat/chat-record.js';
export { chatRecordKey } from './chat/chat-record.js';
export { ChatSession } from './chat/chat-session.js';
export type { FilePart } from './chat/optimistic.js';
export { filePart, userContent } from './chat/optimistic.js';
export type { ChatSessionOptions, SendOptions } from './chat/options.js';
export type { ChatController, InterruptControls } from './client/controller.js';
export type { ClientOptions } from './client/resumable-client.js';
export {
  defaultClient,
  disposeDefaultClients,
  ResumableClient,
} from './client/resumable-client.js';
export type { BranchInfo, ChatMessage, ChatState, OutboxItem } from './conversation/state.js';
// What a UI renders; the interrupt session and the tool runner (loaded on demand by the
// hook) are `@resumable/hooks/interrupts`.
export type { ChatInterrupt, InterruptStatus, ResumeAnswer } from './interrupts/chat-interrupts.js';
export type { BrowserTool, BrowserTools } from './interrupts/tool-declarations.js';
export { toolDeclarations } from './interrupts/tool-declarations.js';
export type { Attachment } from './net/attachment.js';
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
export type { UploadOptions } from './net/uploads.js';
export { mergeRecord, recordOf } from './records/record-write.js';
export type { RunResumeRecord } from './records/run-record.js';
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
export { backoffDelay } from './retry/backoff.js';
export type { ConnectionInfo, ConnectionPhase } from './run/connection.js';
export { initialConnection } from './run/connection.js';
export type { RunSessionOptions, StartRunInput } from './run/run-session.js';
export { RunSession } from './run/run-session.js';
export type { RunSessionState } from './run/session-store.js';
