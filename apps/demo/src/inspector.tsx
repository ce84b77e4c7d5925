import type { ConnectionInfo, StatusError } from '@resumable/ui';
import { memo, useEffect, useRef } from 'react';
import { inspectorLog, useInspectorLog } from './inspector-log.js';

/**
 * The event inspector: the client's connection facts (phase, resume point, attempts) and
 * the timeline of what crossed the wire. Watching it while pressing the chaos buttons shows
 * the whole mechanism: the resume point requested, the replayed burst, then live events.
 */
export const Inspector = memo(function Inspector({
  connection,
  runId,
  error,
}: {
  connection: ConnectionInfo | null;
  runId: string | null;
  /** The chat's error: for a run that ended in error, why (e.g. `agent_lost`). */
  error: StatusError | null;
}) {
  const { totals } = useInspectorLog();
  useConnectionNotes(connection, error);

  return (
    <section className="demo-panel demo-inspector" aria-labelledby="inspector-title">
      <div className="demo-panel-head">
        <h2 id="inspector-title">Event inspector</h2>
        <button type="button" className="demo-link" onClick={() => inspectorLog.clear()}>
          Clear
        </button>
      </div>
      <dl className="demo-facts">
        <dt>Phase</dt>
        <dd data-testid="inspector-phase">{connection?.phase ?? '—'}</dd>
        <dt>Resume point</dt>
        <dd data-testid="inspector-offset">{connection?.offset ?? 0}</dd>
        <dt>Last resume from</dt>
        <dd>{totals.lastAfter ?? '—'}</dd>
        <dt>Resumes</dt>
        <dd>{connection?.resumes ?? 0}</dd>
        <dt>Replayed / live</dt>
        <dd>
          {totals.replayed} / {totals.live}
        </dd>
        <dt>Storage</dt>
        <dd>{connection?.persistence ?? '—'}</dd>
        <dt>Run</dt>
        <dd title={runId ?? undefined}>{runId ? `${runId.slice(0, 8)}…` : '—'}</dd>
      </dl>
      <Timeline />
    </section>
  );
});

/** The rows, apart from the facts: they change with the log, not with every token. */
const Timeline = memo(function Timeline() {
  const { rows } = useInspectorLog();
  const listRef = useRef<HTMLOListElement>(null);

  // Keep the newest row in view, like a terminal.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each new row
  useEffect(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [rows]);

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable list must be reachable by keyboard
    <ol className="demo-timeline" ref={listRef} aria-label="Timeline" tabIndex={0}>
      {rows.map((row) => (
        <li key={row.key} className={`demo-tone-${row.tone}`}>
          <time>{new Date(row.at).toLocaleTimeString([], { hour12: false })}</time> {row.text}
        </li>
      ))}
    </ol>
  );
});

/** Writes each connection phase change, with its reason, into the timeline. */
function useConnectionNotes(connection: ConnectionInfo | null, error: StatusError | null) {
  const previous = useRef<ConnectionInfo | null>(null);
  useEffect(() => {
    const before = previous.current;
    previous.current = connection;
    if (!connection) return;
    if (before && before.phase === connection.phase && before.attempt === connection.attempt) {
      return;
    }
    const { phase, attempt, lastError, nextRetryAt } = connection;
    let text = `phase ${phase}`;
    if (phase === 'reconnecting') {
      const wait = nextRetryAt
        ? ` in ${Math.max(0, (nextRetryAt - Date.now()) / 1000).toFixed(1)} s`
        : '';
      text += ` · attempt ${Math.max(1, attempt)}${wait}`;
      if (lastError) text += ` · reason: ${lastError.code} (${lastError.message})`;
    } else if (phase === 'streaming' && before && before.phase !== 'connecting') {
      // How many events the resume caught up shows in the ⟲ row when they arrive.
      text += ' · resumed';
    } else if (phase === 'error') {
      // A run that ended in error says why in the chat's error; a transport failure only in
      // the connection's last error.
      const why = error ?? lastError;
      if (why) text += ` · ${why.code ?? 'error'}: ${why.message}`;
    }
    const tone =
      phase === 'reconnecting' || phase === 'offline' || phase === 'error' ? 'warn' : 'info';
    inspectorLog.note(text, tone);
  }, [connection, error]);
}
