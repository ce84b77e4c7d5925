import type { ConversationOptions } from '../conversation/state.js';
import type { Attachment } from '../net/attachment.js';

/** A conversation's options, and its outbox's. */
export interface ChatSessionOptions extends ConversationOptions {
  /**
   * Prompts the outbox holds at most (offline, or behind a streaming reply); `send()`
   * past it rejects with `too_many_requests`. @default 50
   */
  maxOutbox?: number;
  /** Extra `RunAgentInput` fields sent with every prompt (tools, context, forwardedProps…). */
  runInput?: Record<string, unknown>;
}

/** What `send` takes besides the text. */
export interface SendOptions {
  /** Uploaded files the prompt references (AG-UI image / document parts). @default [] */
  attachments?: readonly Attachment[];
}
