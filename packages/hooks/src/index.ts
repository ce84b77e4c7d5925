// `@resumable/hooks`: what a React app needs — the provider, the hooks, the shapes they
// return and the storages a provider takes. The engine (sessions, transport, reconnect,
// fold, outbox…) loads with `import()` on a hook's first render; a client without React
// takes it from `@resumable/hooks/core`. Features have entries of their own: `/interrupts`,
// `/threads`, `/attachments`, `/upload`, `/ai-sdk`. The options the hooks and the provider
// take are named here too; the classes they hold (`ResumableClient`, `RunSession`) are
// `/core`'s: exporting them here would load the engine on first paint.

export type { ResumableEnvironment, Signal, TabChannel, TabLocks } from './core/base/env.js';
export type { ChatSessionOptions, SendOptions } from './core/chat/options.js';
export type { ChatController, InterruptControls } from './core/client/controller.js';
export type { ClientOptions } from './core/client/resumable-client.js';
export type {
  BranchInfo,
  ChatMessage,
  ConversationOptions,
  OutboxItem,
} from './core/conversation/state.js';
export type { ChatInterrupt } from './core/interrupts/chat-interrupts.js';
export type { BrowserTool, BrowserTools } from './core/interrupts/tool-declarations.js';
export type { Attachment } from './core/net/attachment.js';
export type { HeadersOption, StartedRun } from './core/net/run-api.js';
export type { UploadOptions } from './core/net/uploads.js';
export type { IndexedDbStorageOptions, RecordStorage } from './core/records/storage.js';
export { createIndexedDbStorage, createMemoryStorage } from './core/records/storage.js';
export type { BackoffOptions } from './core/retry/backoff.js';
export type { ConnectionInfo, ConnectionPhase } from './core/run/connection.js';
export type { RunSessionOptions } from './core/run/options.js';
export type { StartRunInput } from './core/run/run-session.js';
export type { ResumableProviderProps } from './react/provider.js';
export { ResumableProvider, useResumableClient } from './react/provider.js';
export type {
  ResumableChatController,
  UseResumableChatOptions,
} from './react/use-resumable-chat.js';
export { useResumableChat } from './react/use-resumable-chat.js';
export type { ResumableRun, UseResumableRunOptions } from './react/use-resumable-run.js';
export { useResumableRun } from './react/use-resumable-run.js';
