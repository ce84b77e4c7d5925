import type { ChatInterrupt } from '@resumable/hooks/core';
import type { ChatController, ChatMessage, ConnectionInfo } from '../src/controller-types.js';

export function user(id: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage {
  return { id, role: 'user', content, ...extra } as ChatMessage;
}

export function assistant(
  id: string,
  content: string,
  extra: Partial<Extract<ChatMessage, { role: 'assistant' }>> = {},
): ChatMessage {
  return { id, role: 'assistant', content, ...extra } as ChatMessage;
}

/**
 * An idle connection as the hooks start one (typed `ConnectionInfo`, so a new field there
 * fails the type check here), plus `extra`.
 */
export function connection(extra: Partial<ConnectionInfo> = {}): ConnectionInfo {
  const idle: ConnectionInfo = {
    phase: 'idle',
    attempt: 0,
    nextRetryAt: null,
    lastError: null,
    caughtUp: 0,
    resumes: 0,
    offset: 0,
    persistence: 'indexeddb',
  };
  return { ...idle, ...extra };
}

export interface Calls {
  send: string[];
  stop: number;
  retry: number;
  loadOlder: number;
}

export function controller(extra: Partial<ChatController> = {}): {
  controller: ChatController;
  calls: Calls;
} {
  const calls: Calls = { send: [], stop: 0, retry: 0, loadOlder: 0 };
  return {
    calls,
    controller: {
      threadId: 't1',
      runId: null,
      messages: [],
      status: 'idle',
      connection: connection(),
      error: null,
      isStreaming: false,
      outbox: [],
      hasOlder: false,
      isLoadingOlder: false,
      send: async (text) => {
        calls.send.push(text);
      },
      stop: async () => {
        calls.stop++;
      },
      retry: () => {
        calls.retry++;
      },
      loadOlder: async () => {
        calls.loadOlder++;
      },
      reset: () => {},
      ...extra,
    },
  };
}

/** An open approval of `delete_file`, anchored to message `a1`. */
export const approval: ChatInterrupt = {
  id: 'i1',
  reason: 'tool_approval',
  message: 'Delete notes/old-draft.md?',
  toolCallId: 'c1',
  runId: 'r1',
  status: 'open',
  answer: null,
  pending: null,
  answeredBy: null,
  answeredHere: false,
  tool: { name: 'delete_file', arguments: '{"path":"notes/old-draft.md"}' },
  anchor: 'a1',
  execution: null,
};
