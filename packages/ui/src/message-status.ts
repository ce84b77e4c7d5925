import type { ChatMessage } from './controller-types.js';

/** The `data-status` of a message element (the DOM contract tests and users rely on). */
export type MessageStatus = 'streaming' | 'complete' | 'stopped' | 'error';

export function messageStatus(message: ChatMessage): MessageStatus {
  if (message.ended === 'stopped') return 'stopped';
  if (message.ended === 'error') return 'error';
  if ('error' in message && typeof message.error === 'string') return 'error';
  if (message.streaming) return 'streaming';
  return 'complete';
}
