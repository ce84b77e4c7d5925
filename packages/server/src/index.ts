// `@resumable/server`: what an application needs to serve resumable runs. Test helpers are
// on `@resumable/server/testing`, the AI SDK adapter on `@resumable/server/ai-sdk`.

// Agents.
export { type AguiProxyAgentOptions, aguiProxyAgent } from './agents/agui.js';
export { type OpenAIAgentOptions, openaiAgent } from './agents/openai.js';
export { type ScriptedAgentOptions, type ScriptOptions, scriptedAgent } from './agents/scripted.js';
export type { ScriptedInterrupt } from './agents/scripted-interrupts.js';
export type { UpstreamTimeouts } from './agents/sse-reader.js';
export type { Agent, AgentContext, AgentLimits } from './agents/types.js';
// Serving: the whole server as a Web handler, on Node, or as a Hono app.
export {
  createResumableApp,
  type FileOptions,
  type ResumableApp,
  type ResumableServerOptions,
  type ServerLimits,
} from './app.js';
// Who may read and write a thread.
export { type Authorize, type AuthorizeTarget, tokenOf, tokenPolicy } from './auth.js';
export { DEFAULTS } from './defaults.js';
// Uploaded files.
export { DirectoryFiles } from './files/directory.js';
export type { ReadFile } from './files/references.js';
export { KNOWN_FILE_TYPES } from './files/sniff.js';
export {
  createResumableHandler,
  type ResumableHandler,
  type ResumableHandlerOptions,
  toNodeListener,
} from './handler.js';
// Answering an application's own route with the server's JSON error.
export { errorResponse } from './http/errors.js';
export type { RunRequest } from './input.js';
export { type RunningServer, type StartServerOptions, startServer } from './node.js';
export type { ClientLimits } from './runs/admission.js';
export type { RunLimits } from './runs/options.js';
// `ResumableApp.manager`: what a route of the application's own reaches runs through.
export type { RunManager, RunManagerOptions, StreamCounts } from './runs/run-manager.js';
// A run the server starts itself (a scheduled job, a webhook), followed by every client.
export { type ServerRunRequest, startServerRun } from './runs/server-run.js';

// Stores, and the contract a store of one's own implements (stores/types.ts).
export { MemoryStore, type MemoryStoreOptions } from './stores/memory/memory-store.js';
export { openStore } from './stores/open.js';
export { RedisStore, type RedisStoreOptions } from './stores/redis/redis-store.js';
export { SqliteStore, type SqliteStoreOptions } from './stores/sqlite/sqlite-store.js';
export {
  AppendConflictError,
  type EventStore,
  type FileStore,
  type FileUpload,
  type InterruptAnswer,
  type InterruptLedger,
  type MessagePage,
  type NewRun,
  type QuotaHold,
  type RateRefusal,
  type RateTake,
  type RunEnd,
  type RunRecord,
  runInProgress,
  runNotFound,
  type SharedCounters,
  type StoredEvent,
  type StoredFile,
  type StoredRunStatus,
  type ThreadEdits,
  type ThreadLogHead,
  type ThreadLogStore,
  type ThreadRecord,
  threadNotFound,
} from './stores/types.js';
