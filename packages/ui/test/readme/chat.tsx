import { ResumableProvider, useResumableChat } from '@resumable/hooks';
import { useChatTurns } from '@resumable/hooks/turns';
import { Markdown } from '@resumable/ui';

export function Chat() {
  const chat = useResumableChat(); // persisted under the key 'chat'
  const turns = useChatTurns(chat); // each prompt, and each whole answer, with its parts
  return (
    <div>
      {chat.hasOlder && (
        <button type="button" onClick={() => chat.loadOlder()}>
          Older
        </button>
      )}
      <ul role="log">
        {turns.map((turn) => (
          <li key={turn.key}>
            <b>{turn.role}</b>
            {turn.parts.map((part, i) =>
              part.type === 'text' ? (
                <Markdown key={i} text={part.text} streaming={part.streaming} />
              ) : part.type === 'tool' ? (
                <p key={i}>
                  {part.toolName}: {part.status}
                </p>
              ) : null,
            )}
            {turn.pending === 'queued' && ' (will send when online)'}
            {turn.ended === 'stopped' && ' (stopped)'}
          </li>
        ))}
      </ul>
      <p>{chat.connection.phase}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const input = e.currentTarget.elements.namedItem('q') as HTMLInputElement;
          void chat.send(input.value);
          input.value = '';
        }}
      >
        <input name="q" />
        {chat.isStreaming ? (
          <button type="button" onClick={() => chat.stop()}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
      </form>
    </div>
  );
}

export function App() {
  return (
    <ResumableProvider endpoint="/api">
      <Chat />
    </ResumableProvider>
  );
}
