// `@resumable/hooks/interrupts`: human in the loop without React — the interrupt session
// (derived interrupts, answers through the chat's outbox) and the browser tool runner.
// `useResumableChat` loads this on demand, so a page that never meets an interrupt does not
// pay for it on first paint. The wire's shapes (`InterruptView`, `InterruptStatus`,
// `ResumeEntry`) are `@resumable/protocol`'s.
export type { LockManagerLike } from './core/interrupts/browser-tools.js';
export { BrowserToolRunner, browserToolRunnerOf } from './core/interrupts/browser-tools.js';
export type {
  ChatInterrupt,
  KnownInterrupt,
  LocalAnswer,
} from './core/interrupts/chat-interrupts.js';
export { deriveInterrupts, interruptsOf, openBatch } from './core/interrupts/chat-interrupts.js';
export type { InterruptRecord, ToolMark } from './core/interrupts/interrupt-record.js';
export type { InterruptState } from './core/interrupts/interrupt-session.js';
export { InterruptSession, interruptSessionOf } from './core/interrupts/interrupt-session.js';
export type { BrowserTool, BrowserTools } from './core/interrupts/tool-declarations.js';
export { toolDeclarations } from './core/interrupts/tool-declarations.js';
