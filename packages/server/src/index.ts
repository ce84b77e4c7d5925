export { type AguiProxyAgentOptions, aguiProxyAgent } from './agents/agui.js';
export { type OpenAIAgentOptions, openaiAgent } from './agents/openai.js';
export {
  mulberry32,
  replyTokens,
  type ScriptedAgentOptions,
  type ScriptOptions,
  scriptedAgent,
  timeLead,
} from './agents/scripted.js';
export type { UpstreamTimeouts } from './agents/sse-reader.js';
export type { Agent, AgentContext, AgentLimits } from './agents/types.js';
export {
  createResumableApp,
  type FileOptions,
  type ResumableApp,
  type ResumableServerOptions,
  type ServerLimits,
} from './app.js';
export { type Authorize, type AuthorizeTarget, tokenOf, tokenPolicy } from './auth.js';
export { DEFAULTS } from './defaults.js';
export { DirectoryFiles } from './files/directory.js';
export type { ReadFile } from './files/references.js';
export { KNOWN_FILE_TYPES } from './files/sniff.js';
export {
  createResumableHandler,
  type ResumableHandler,
  type ResumableHandlerOptions,
  toNodeListener,
} from './handler.js';
export { errorResponse } from './http/errors.js';
export { type RunningServer, type StartServerOptions, startServer } from './node.js';
export type { ClientLimits } from './runs/admission.js';
export {
  type RunLimits,
  RunManager,
  type RunManagerOptions,
  type StreamCounts,
} from './runs/run-manager.js';
export { type ServerRunRequest, startServerRun } from './runs/server-run.js';
export { MemoryStore, type MemoryStoreOptions } from './stores/memory/memory-store.js';
export { openStore } from './stores/open.js';
export { RedisStore, type RedisStoreOptions } from './stores/redis/redis-store.js';
export { SqliteStore, type SqliteStoreOptions } from './stores/sqlite/sqlite-store.js';
export type { ThreadLogHead, ThreadLogStore } from './stores/types.js';
export * from './stores/types.js';
export { THREAD_EVENTS } from './threads/thread-events.js';
