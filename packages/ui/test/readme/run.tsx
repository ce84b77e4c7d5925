import { useResumableRun } from '@resumable/hooks';
import { useChatTurns } from '@resumable/hooks/turns';
import { Markdown } from '@resumable/ui';

export function Report() {
  const run = useResumableRun({ endpoint: '/api', key: 'weekly-report' });
  const turns = useChatTurns({ messages: run.messages, isStreaming: run.status === 'running' });
  // The answer's text parts: its reasoning and tool calls are parts of their own.
  const text = turns.flatMap((turn) =>
    turn.role === 'assistant' ? turn.parts.filter((part) => part.type === 'text') : [],
  );
  return (
    <section>
      <button
        type="button"
        disabled={run.status === 'running'}
        onClick={() =>
          run.start({ messages: [{ id: crypto.randomUUID(), role: 'user', content: 'Write it' }] })
        }
      >
        Generate
      </button>
      {run.status === 'running' && (
        <button type="button" onClick={() => run.cancel()}>
          Cancel
        </button>
      )}
      {run.error && (
        <p role="alert">
          {run.error.code}: {run.error.message}
        </p>
      )}
      <article>
        {text.map((part) => (
          <Markdown key={part.messageId} text={part.text} streaming={part.streaming} />
        ))}
      </article>
      <small>
        {run.connection.phase}
        {run.connection.resumes > 0 && ` · caught up ${run.connection.caughtUp} events`}
      </small>
    </section>
  );
}
