// `@resumable/hooks/observe`: what the client does and why, for devtools — `observeClient`
// and the events it hears (`core/client/client-events.ts` lists them, and who tells each).
// Framework-free and a few hundred bytes: importing it loads none of the engine, so a page
// that observes still paints first and loads the engine when its hooks ask for it.
export type { ObservedBase, ObservedScope } from './core/base/observe.js';
export type { ObservedOutbox, OutboxMove } from './core/chat/outbox.js';
export type { ObservedEvent } from './core/client/client-events.js';
export { observeClient } from './core/client/client-events.js';
export type {
  ConversationEffectKind,
  ConversationInputKind,
  ConversationPhase,
} from './core/conversation/machine.js';
export type { ObservedConversation } from './core/conversation/queue.js';
export type { OutboxItem } from './core/conversation/state.js';
export type { ChatInterrupt } from './core/interrupts/chat-interrupts.js';
export type { ObservedInterrupts } from './core/interrupts/interrupt-session.js';
export type { Attachment } from './core/net/attachment.js';
export type { ObservedStreamEnd, StreamOutcome } from './core/net/event-stream.js';
export type { ObservedRequest, ObservedResponse } from './core/net/http.js';
export type { ObservedWrite } from './core/records/record-writer.js';
export type { ObservedStorage } from './core/records/storage-watch.js';
export type { ObservedRetry } from './core/retry/retrier.js';
export type { ConnectionPhase } from './core/run/connection.js';
export type {
  ObservedEvents,
  ObservedPhase,
  ObservedRun,
  ObservedSnapshot,
} from './core/run/followed-run.js';
export type { SessionEvent, SessionPhase } from './core/run/machine.js';
export type { ObservedRole, StreamRole } from './core/run/shared-stream.js';
