import { useResumableChat } from '@resumable/hooks';
import { useChatTurns } from '@resumable/hooks/turns';
import { TurnParts } from '@resumable/ui/turns';

export function Transcript() {
  const chat = useResumableChat({ endpoint: '/api' });
  return (
    <ol>
      {useChatTurns(chat).map((turn) => (
        <li key={turn.key}>
          <TurnParts turn={turn} controls={chat} />
        </li>
      ))}
    </ol>
  );
}
