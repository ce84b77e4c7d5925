// `@resumable/hooks`: what a React app needs — the provider, the hooks, the shapes they
// return and the storages a provider takes. The engine (sessions, transport, reconnect,
// fold, outbox…) loads with `import()` on a hook's first render; a client without React
// takes it from `@resumable/hooks/core`. Features have entries of their own: `/interrupts`,
// `/threads`, `/attachments`, `/upload`, `/ai-sdk`.

export type { SendOptions } from './core/chat/options.js';
export type { ChatController, InterruptControls } from './core/client/controller.js';
export type { BranchInfo, ChatMessage, OutboxItem } from './core/conversation/state.js';
export type { ChatInterrupt } from './core/interrupts/chat-interrupts.js';
export type { BrowserTool, BrowserTools } from './core/interrupts/tool-declarations.js';
export type { Attachment } from './core/net/attachment.js';
export type { HeadersOption, StartedRun } from './core/net/run-api.js';
export type { UploadOptions } from './core/net/uploads.js';
export type { RecordStorage } from './core/records/storage.js';
export { createIndexedDbStorage, createMemoryStorage } from './core/records/storage.js';
export type { ConnectionInfo, ConnectionPhase } from './core/run/connection.js';
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
