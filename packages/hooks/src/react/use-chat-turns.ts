import { useMemo, useRef } from 'react';
import { type ChatTurn, type ChatTurnsInput, chatTurns } from '../core/turns/chat-turns.js';

/**
 * The turn view of a chat (`useResumableChat()`'s controller, or anything with its
 * `messages`, `interrupts` and `isStreaming`): each prompt and each whole answer one turn
 * with its parts in order (`chatTurns`). Derived again only when one of the three changes;
 * a turn that did not change keeps its identity, so a memoized row skips rendering.
 */
export function useChatTurns(chat: ChatTurnsInput): readonly ChatTurn[] {
  const { messages, interrupts, isStreaming } = chat;
  const last = useRef<readonly ChatTurn[]>([]);
  return useMemo(() => {
    const turns = chatTurns({ messages, interrupts, isStreaming }, last.current);
    last.current = turns;
    return turns;
  }, [messages, interrupts, isStreaming]);
}
