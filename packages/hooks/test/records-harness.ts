import type { ServerResponse } from 'node:http';
import type { ResumableError } from '@resumable/protocol';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import { BOUND_MS, server, stops, threadChat } from './hostile-harness.js';
import { RUN, storedChat } from './hostile-server.js';
import { waitFor } from './util.js';

/** Shared by the records-* tests of interrupts: a held chat and its interrupt session. */

/** A thread chat (empty outbox) and its held `InterruptSession`, once both have read. */
export async function heldInterrupts(
  onWarning: (warning: ResumableError) => void = () => {},
): Promise<{ chat: ChatSession; hitl: InterruptSession }> {
  const chat = threadChat(await storedChat({ outbox: [] }));
  const hitl = new InterruptSession(chat, onWarning);
  stops.push(hitl.retain());
  const read = () => hitl.getState().server.length > 0 && chat.getState().hydrated;
  await waitFor(read, 'read', BOUND_MS);
  return { chat, hitl };
}

/** `GET /threads/{id}` answered with one open `client_tool` interrupt (tool `search`). */
export function toolInterruptThread(res: ServerResponse): true {
  const interrupts = [
    {
      id: 'i1',
      reason: 'client_tool',
      runId: RUN,
      status: 'open',
      metadata: { toolName: 'search', args: {} },
    },
  ];
  return server.json(res, 200, { threadId: 'th-hostile', runs: [], interrupts });
}
