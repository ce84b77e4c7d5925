import type { RunMessage } from '@resumable/protocol';
import { messageProblem, messageText } from '@resumable/protocol';
import type { UIMessage } from 'ai';
import { partsOf, segmentsOf } from './segments.js';

/**
 * A stored conversation as `UIMessage`s: each user message alone, each run of other
 * messages between them as one assistant message (the AI SDK's shape: one reply, many
 * parts). The current run's reply, if any, comes last with the run id as its id — the id
 * its resume stream starts with — and its messages are dropped from the history.
 * `history`: the thread's messages (a history page); `prompt`: this device's last prompt, or
 * null; `run`: the run session's `runId` and folded `messages` (`RunSessionState`'s).
 */
export function conversationOf(input: {
  history: readonly RunMessage[];
  prompt: RunMessage | null;
  run: { runId: string | null; messages: readonly RunMessage[] };
}): UIMessage[] {
  const { run } = input;
  const inRun = new Set(run.messages.map((m) => m.id));
  if (input.prompt) inRun.add(input.prompt.id);
  const out: UIMessage[] = [];
  let reply: RunMessage[] = [];
  const flush = () => {
    const message = reply.length > 0 ? assistant(reply[0]!.id, reply) : null;
    // A group with nothing to show (system or developer messages) is no reply.
    if (message && message.parts.length > 0) out.push(message);
    reply = [];
  };
  for (const m of input.history) {
    if (inRun.has(m.id)) continue;
    if (m.role === 'user') {
      flush();
      out.push(user(m));
    } else reply.push(m);
  }
  flush();
  if (input.prompt) out.push(user(input.prompt));
  if (run.runId !== null) {
    const own = run.messages.filter((m) => m.role !== 'user');
    const prompt = run.messages.find((m) => m.role === 'user');
    if (!input.prompt && prompt) out.push(user(prompt));
    if (own.length > 0) out.push(assistant(run.runId, own));
  }
  return out;
}

function user(m: RunMessage): UIMessage {
  return { id: m.id, role: 'user', parts: [{ type: 'text', text: messageText(m) }] };
}

function assistant(id: string, messages: readonly RunMessage[]): UIMessage {
  return { id, role: 'assistant', parts: partsOf(segmentsOf(messages)) };
}

/**
 * A history page as the server sent it, made safe to show: its newest `limit` entries at
 * most (a server ignoring `limit` sends no unbounded page through), and only those that
 * are messages (`messageProblem`: an id, a role, well-formed tool calls) — an entry of
 * another shape is dropped, as the fold drops it, instead of throwing out of the adapter.
 */
export function historyOf(page: readonly unknown[], limit: number): RunMessage[] {
  // `slice(-0)` would be the whole page.
  const newest = limit > 0 ? page.slice(-limit) : [];
  return newest.filter((m): m is RunMessage => messageProblem(m) === null);
}
