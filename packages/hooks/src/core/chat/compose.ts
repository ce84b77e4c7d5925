import type { RunMessage } from '@resumable/protocol';
import type { ChatMessage, ChatState, OutboxItem } from '../conversation/state.js';

/**
 * One list for the transcript: history, settled runs, the current run (with its prompt
 * when the run log does not echo it) and the outbox's optimistic prompts, each id once.
 * A message several sources name (a history page and a settled run, a settled run and the
 * current one, a continuation repeating its tool call, an outbox prompt its run confirmed)
 * keeps the place of its first copy (the current run's and the outbox's at the end, as a
 * run's messages follow everything shown before it), the content of its newest (an outbox guess is the
 * oldest, then history, settled, the current run), and the parent a copy names when the
 * newest names none (the server's parent over the branch view's guess; a history page's only
 * where the message keeps its place in it). Message objects are
 * passed through untouched where nothing is merged (a settled reply keeps its identity
 * while the next one streams); a merged one keeps its identity across calls too.
 */
export function composeMessages(
  chat: Pick<ChatState, 'history' | 'settled' | 'prompt' | 'sending' | 'outbox'>,
  runMessages: readonly RunMessage[],
  runId: string | null,
  optimistic: (item: OutboxItem, pending: 'sending' | 'queued') => ChatMessage,
): ChatMessage[] {
  const promptInRun = chat.prompt && chat.prompt.runId === runId ? chat.prompt.message : null;
  const guesses: ChatMessage[] = [];
  for (const item of chat.outbox) {
    if (item.resume) continue; // an answer to interrupts shows on its card, not as a prompt
    // A regenerate waiting has no prompt to show: the branch view ends at its parent.
    if (item.kind === 'regenerate') continue;
    guesses.push(optimistic(item, chat.sending?.runId === item.runId ? 'sending' : 'queued'));
  }
  const run = promptInRun ? [promptInRun, ...runMessages] : runMessages;
  // The current run and the outbox stay last (a message of theirs also in history or a
  // settled run is placed there): what a page or a settled run holds besides comes before.
  const tail = new Set<string>();
  for (const m of run) tail.add(m.id);
  for (const m of guesses) tail.add(m.id);
  // Oldest word first: each later copy of an id replaces the content of the earlier.
  const byAge = [guesses, chat.history, chat.settled, run as readonly ChatMessage[]];
  const newest = new Map<string, ChatMessage>();
  const parent = new Map<string, string | null>();
  for (const source of byAge) {
    for (const m of source) {
      newest.set(m.id, m);
      const named = parentOf(m);
      // A page's parent is not lent to a message placed at the end: the branch view would
      // end the branch there (a finished run restored after a reload is older than the page).
      if (named !== undefined && !(source === chat.history && tail.has(m.id))) {
        parent.set(m.id, named);
      }
    }
  }
  const messages: ChatMessage[] = [];
  for (const source of [chat.history, chat.settled, run, guesses]) {
    const inTail = source === run || source === guesses;
    for (const m of source) {
      const latest = newest.get(m.id);
      if (latest === undefined || (!inTail && tail.has(m.id))) continue; // placed elsewhere
      newest.delete(m.id);
      const named = parent.get(m.id);
      messages.push(
        named === undefined || parentOf(latest) !== undefined ? latest : withParent(latest, named),
      );
    }
  }
  return messages;
}

function parentOf(m: ChatMessage | RunMessage): string | null | undefined {
  const p = (m as { parentId?: unknown }).parentId;
  return typeof p === 'string' || p === null ? p : undefined;
}

/** A copy of `m` under `parentId`, the same object for the same pair (rows stay memoized). */
const parented = new WeakMap<ChatMessage, ChatMessage>();
function withParent(m: ChatMessage, parentId: string | null): ChatMessage {
  const made = parented.get(m);
  if (made && made.parentId === parentId) return made;
  const next = { ...m, parentId } as ChatMessage;
  parented.set(m, next);
  return next;
}
