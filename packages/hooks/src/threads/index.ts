// The thread list: a separate entry (`@resumable/hooks/threads`), so a page with one
// conversation does not load it. `useTrackThread` takes a chat's controller: its types are
// named here too.

export { DEFAULT_MAX_THREADS } from '../core/base/defaults.js';
export type { SendOptions } from '../core/chat/options.js';
export type { ChatController, InterruptControls } from '../core/client/controller.js';
export type { BranchInfo, ChatMessage, OutboxItem } from '../core/conversation/state.js';
export type { ChatInterrupt } from '../core/interrupts/chat-interrupts.js';
export type { Attachment } from '../core/net/attachment.js';
export type { EndpointOptions } from '../core/net/endpoint.js';
export type { HeadersOption } from '../core/net/run-api.js';
export type { CreatedThread } from '../core/net/thread-api.js';
export { createThread, deleteThread, renameThread } from '../core/net/thread-api.js';
export type { UploadOptions } from '../core/net/uploads.js';
export type { RecordStorage } from '../core/records/storage.js';
export type { ConnectionInfo, ConnectionPhase } from '../core/run/connection.js';
export type {
  LocalThreadSourceOptions,
  ThreadEntry,
  ThreadIndexState,
  ThreadPatch,
  ThreadSource,
} from '../core/threads/thread-index.js';
export {
  localThreadSource,
  sortThreads,
  THREAD_INDEX_KEY,
  ThreadIndex,
  titleFromPrompt,
} from '../core/threads/thread-index.js';
export type { ThreadsController, UseThreadsOptions } from '../react/use-threads.js';
export { useThreads, useTrackThread } from '../react/use-threads.js';
