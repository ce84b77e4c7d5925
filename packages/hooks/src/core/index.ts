// `@resumable/hooks/core`: a client without React — the client and its sessions, the
// environment and storages they take, the shapes their stores hold. No React import anywhere
// below this folder (a test proves it). Internals (the transport, the record helpers, the
// tab messages…) are not exported: they change without notice.

export type {
  ManualSignal,
  ResumableEnvironment,
  Signal,
  TabChannel,
  TabLocks,
} from './base/env.js';
export {
  browserOnlineSignal,
  browserVisibleSignal,
  createEnvironment,
  createManualSignal,
} from './base/env.js';
export { ChatSession } from './chat/chat-session.js';
export type { ChatSessionOptions, SendOptions } from './chat/options.js';
export type { ChatController, InterruptControls } from './client/controller.js';
export type { ClientOptions } from './client/resumable-client.js';
export {
  defaultClient,
  disposeDefaultClients,
  ResumableClient,
} from './client/resumable-client.js';
export type {
  BranchInfo,
  ChatMessage,
  ChatState,
  ConversationOptions,
  OutboxItem,
  Regenerated,
} from './conversation/state.js';
export type { ChatInterrupt } from './interrupts/chat-interrupts.js';
export type { Attachment } from './net/attachment.js';
export type { HeadersOption, StartedRun } from './net/run-api.js';
export type { UploadOptions } from './net/uploads.js';
export type { IndexedDbStorageOptions, RecordStorage } from './records/storage.js';
export {
  createIndexedDbStorage,
  createMemoryStorage,
  defaultStorage,
  hasIndexedDb,
  withFallback,
} from './records/storage.js';
export type { BackoffOptions } from './retry/backoff.js';
export type { ConnectionInfo, ConnectionPhase } from './run/connection.js';
export type { RunSessionOptions } from './run/options.js';
export type { StartRunInput } from './run/run-session.js';
export { RunSession } from './run/run-session.js';
export type { RunSessionState } from './run/session-store.js';
export type {
  ChatTurn,
  ChatTurnsInput,
  FilePart,
  InterruptPart,
  ReasoningPart,
  TextPart,
  ToolCallStatus,
  ToolPart,
  ToolResult,
  TurnPart,
} from './turns/chat-turns.js';
export { chatTurns, toolCallStatus } from './turns/chat-turns.js';
