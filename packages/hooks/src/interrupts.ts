// `@resumable/hooks/interrupts`: human in the loop without React — the interrupt session
// (derived interrupts, answers through the chat's outbox) and the browser tool runner.
// `useResumableChat` loads this on demand, so a page that never meets an interrupt does not
// pay for it on first paint. The wire's shapes (`InterruptView`, `InterruptStatus`,
// `ResumeEntry`) are `@resumable/protocol`'s. The `ChatSession` a session answers for is
// named here; the types of its members (its options, state, run session) are `/core`'s.

import type { ResumableError } from '@resumable/protocol';
import type { ChatSession } from './core/chat/chat-session.js';
import {
  InterruptSession,
  interruptSessionOf as sessionOfHost,
} from './core/interrupts/interrupt-session.js';

export type { ChatSession } from './core/chat/chat-session.js';
export type { LockManagerLike } from './core/interrupts/browser-tools.js';
export { BrowserToolRunner, browserToolRunnerOf } from './core/interrupts/browser-tools.js';
export type {
  ChatInterrupt,
  DeriveInput,
  KnownInterrupt,
  LocalAnswer,
} from './core/interrupts/chat-interrupts.js';
export { deriveInterrupts, interruptsOf, openBatch } from './core/interrupts/chat-interrupts.js';
export type { InterruptRecord, ToolMark } from './core/interrupts/interrupt-record.js';
export type { InterruptState } from './core/interrupts/interrupt-session.js';
export type { BrowserTool, BrowserTools } from './core/interrupts/tool-declarations.js';
export { toolDeclarations } from './core/interrupts/tool-declarations.js';
export { InterruptSession };

/**
 * The interrupt session of a chat: one per chat, made on first use (later calls return it,
 * and their `onWarning` is not used). `onWarning` hears what goes wrong without failing an
 * answer: a record write that failed, a read of the server's statuses that gave up
 * (`no_progress`, `unauthorized`, `thread_not_found`…), a continuation the server refused
 * (`interrupt_answered`: another tab or device answered first), a browser tool's failure.
 *
 * @example
 * ```ts
 * const interrupts = interruptSessionOf(chat);
 * const release = interrupts.retain();
 * await interrupts.resolve(id, { approved: true });
 * ```
 */
export const interruptSessionOf: (
  chat: ChatSession,
  onWarning?: (warning: ResumableError) => void,
) => InterruptSession = sessionOfHost;
