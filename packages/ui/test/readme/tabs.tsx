import { useResumableChat } from '@resumable/hooks';
import { useChatTurns } from '@resumable/hooks/turns';

// Two tabs of this page share one connection; a run the server starts appears live.
export function Conversation({ threadId, token }: { threadId: string; token: string }) {
  const chat = useResumableChat({ endpoint: '/api', threadId, token });
  const turns = useChatTurns(chat);
  return (
    <>
      <p>{chat.connection.viaTab ? 'Live via another tab' : chat.connection.phase}</p>
      <ul role="log">
        {turns.map((turn) => (
          <li key={turn.key}>
            {turn.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')}
          </li>
        ))}
      </ul>
    </>
  );
}
// Opt out (each tab its own connection, no thread stream):
// useResumableChat({ endpoint: '/api', threadId, token, shareTabs: false, followThread: false })
