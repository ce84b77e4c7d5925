import type { ChatMessage } from './controller-types.js';

/** The `data-status` of a message element (the DOM contract tests and users rely on). */
export type MessageStatus = 'streaming' | 'complete' | 'stopped' | 'error';

/**
 * A message's {@link MessageStatus}: `stopped` or `error` once it ended so (a message with an
 * `error` is `error`), `streaming` while it streams, else `complete`.
 */
export function messageStatus(message: ChatMessage): MessageStatus {
  if (message.ended === 'stopped') return 'stopped';
  if (message.ended === 'error') return 'error';
  if ('error' in message && typeof message.error === 'string') return 'error';
  if (message.streaming) return 'streaming';
  return 'complete';
}
