export type { EngineLoader, EngineModule, EngineState } from '../core/client/client-handle.js';
export type { ResumableProviderProps } from './provider.js';
export { ResumableProvider, useResumableClient } from './provider.js';
export type { ResumableChatController, UseResumableChatOptions } from './use-resumable-chat.js';
export { useResumableChat } from './use-resumable-chat.js';
export type { ResumableRun, UseResumableRunOptions } from './use-resumable-run.js';
export { useResumableRun } from './use-resumable-run.js';
