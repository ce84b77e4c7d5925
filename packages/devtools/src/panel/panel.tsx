import type { ReactNode } from 'react';
import { memo, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { sessionJson } from '../model/session-json.js';
import { shortIds } from '../model/timeline.js';
import type {
  ConversationView,
  DevtoolsState,
  ErrorView,
  EventRow,
  TimelineRow,
} from '../model/views.js';
import type { DevtoolsRecorder } from '../recorder.js';
import { PANEL_CSS } from './styles.js';

/**
 * The devtools panel (a lazily loaded chunk): for the conversation chosen, the facts first —
 * connection phase and why, runs, resume point and the last `after=`, storage and its last
 * write, tab leadership, outbox, open interrupts — then the lists, each folded apart: the
 * timeline, the events with their offsets and timings, the requests, the retries.
 */
export interface DevtoolsPanelProps {
  recorder: DevtoolsRecorder;
  /** Shown when the panel floats (`<ResumableDevtools>`): a Close button. */
  onClose?: (() => void) | undefined;
  /** The conversation shown first (its session key); else the one the page used last. */
  initialKey?: string | undefined;
  /** Light or dark; by default the page's `prefers-color-scheme`. */
  theme?: 'light' | 'dark' | undefined;
}

export default function DevtoolsPanel({
  recorder,
  onClose,
  initialKey,
  theme,
}: DevtoolsPanelProps) {
  const state = useSyncExternalStore(recorder.subscribe, recorder.getState, recorder.getState);
  const [chosen, choose] = useState<string | null>(null);
  const current = pick(state, chosen, initialKey);
  return (
    <section className={theme ? `rdt rdt-${theme}` : 'rdt'} aria-label="Resumable devtools">
      <style>{PANEL_CSS}</style>
      <header className="rdt-head">
        <h2 className="rdt-title">Resumable devtools</h2>
        {state.conversations.length > 0 ? (
          <label className="rdt-pick">
            <span>Conversation</span>
            <select value={current?.id ?? ''} onChange={(e) => choose(e.currentTarget.value)}>
              {state.conversations.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.key}
                  {state.conversations.some((o) => o !== c && o.key === c.key)
                    ? ` (${c.endpoint})`
                    : ''}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <div className="rdt-actions">
          {current ? <CopyButton conversation={current} /> : null}
          <button type="button" onClick={() => recorder.clear()}>
            Clear
          </button>
          {onClose ? (
            <button type="button" onClick={onClose}>
              Close
            </button>
          ) : null}
        </div>
      </header>
      {current ? (
        <Conversation conversation={current} />
      ) : (
        <p className="rdt-empty">
          No conversation yet: the panel shows what a Resumable client does once one runs.
        </p>
      )}
    </section>
  );
}

/** The chosen conversation, else the initial key's, else the one active last. */
function pick(
  state: DevtoolsState,
  chosen: string | null,
  initialKey: string | undefined,
): ConversationView | null {
  const { conversations } = state;
  return (
    conversations.find((c) => c.id === chosen) ??
    conversations.find((c) => c.key === initialKey) ??
    conversations.reduce<ConversationView | null>(
      (latest, c) => (latest === null || c.lastSeen >= latest.lastSeen ? c : latest),
      null,
    )
  );
}

function CopyButton({ conversation }: { conversation: ConversationView }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    const json = sessionJson(conversation, { url: location.href, userAgent: navigator.userAgent });
    try {
      await navigator.clipboard.writeText(json);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <button type="button" onClick={() => void copy()}>
      {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy as JSON'}
    </button>
  );
}

const errorText = (error: ErrorView | null) =>
  error ? `${error.code}${error.status ? ` ${error.status}` : ''}: ${error.message}` : '';

// One formatter for every time shown: `toLocaleTimeString` builds a new one per call, and
// the panel shows hundreds of times five times a second while the page it watches streams.
const CLOCK = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});
const clock = (at: number) => CLOCK.format(at);

/**
 * A folded section whose content is rendered only while it is open: a closed list of 500
 * events costs the page nothing on each redraw.
 */
function Section({
  summary,
  initiallyOpen = false,
  children,
}: {
  summary: ReactNode;
  initiallyOpen?: boolean;
  children: () => ReactNode;
}) {
  const [open, setOpen] = useState(initiallyOpen);
  return (
    <details className="rdt-section" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {open ? children() : null}
    </details>
  );
}

function Conversation({ conversation: c }: { conversation: ConversationView }) {
  const run = c.runs[0];
  const open = c.interrupts.filter((i) => i.status === 'open');
  return (
    <div className="rdt-body">
      <dl className="rdt-facts">
        <dt>Conversation</dt>
        <dd data-testid="rdt-conversation">
          {c.conversation ? (
            <>
              <b>{c.conversation.phase}</b>{' '}
              <span className="rdt-dim">(on {c.conversation.input})</span>
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Phase</dt>
        <dd data-testid="rdt-phase">
          {c.phase ? (
            <>
              <b>{c.phase.connection}</b>{' '}
              <span className="rdt-dim">
                ({c.phase.session}, on {c.phase.event})
              </span>
              {c.phase.error ? (
                <span className="rdt-warn"> · {errorText(c.phase.error)}</span>
              ) : null}
              {c.phase.nextRetryAt !== null ? (
                <span className="rdt-dim"> · attempt {c.phase.attempt}</span>
              ) : null}
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Run</dt>
        <dd data-testid="rdt-run" title={run?.runId}>
          {run
            ? `${shortIds(run.runId)} ${run.how}${run.how === 'restored' ? ` at ${run.fromOffset}` : ''}`
            : '—'}
          {c.runs.length > 1 ? <span className="rdt-dim"> · {c.runs.length} runs</span> : null}
        </dd>
        <dt>Resume point</dt>
        <dd data-testid="rdt-resume-point">{c.resumePoint}</dd>
        <dt>Last after=</dt>
        <dd data-testid="rdt-last-after">{c.lastAfter ?? '—'}</dd>
        <dt>Events</dt>
        <dd data-testid="rdt-event-count">{c.eventCount}</dd>
        <dt>Storage</dt>
        <dd data-testid="rdt-storage">
          {c.storage ? (c.storage.kind === 'indexeddb' ? 'IndexedDB' : 'memory') : '—'}
          {c.storage?.reason ? (
            <span className="rdt-warn"> · {c.storage.reason.message}</span>
          ) : null}
        </dd>
        <dt>Last write</dt>
        <dd data-testid="rdt-last-write">
          {c.lastWrite
            ? `offset ${c.lastWrite.offset} · ${clock(c.lastWrite.at)} · ${c.lastWrite.ms} ms${
                c.lastWrite.error ? ` · ${errorText(c.lastWrite.error)}` : ''
              }`
            : '—'}
        </dd>
        <dt>Tabs</dt>
        <dd data-testid="rdt-role">{c.role ? c.role.role : 'solo'}</dd>
        <dt>Outbox</dt>
        <dd data-testid="rdt-outbox">
          {c.outbox.items.length === 0 ? 'empty' : `${c.outbox.items.length} waiting`}
          {c.outbox.sending ? ' · one in flight' : ''}
        </dd>
        <dt>Interrupts</dt>
        <dd data-testid="rdt-interrupts">
          {open.length === 0 ? 'none open' : `${open.length} open`}
        </dd>
        <dt>Retries</dt>
        <dd data-testid="rdt-retries">{c.retries.length}</dd>
      </dl>
      <Timeline conversation={c} />
      <Section summary={`Events (${c.eventCount})`}>
        {() => <EventsTable conversation={c} />}
      </Section>
      <Section summary={`Requests (${c.requests.length})`}>
        {() => <RequestsTable conversation={c} />}
      </Section>
      <Section summary={`Retries (${c.retries.length})`}>
        {() => <RetriesTable conversation={c} />}
      </Section>
      <Section summary={`Outbox (${c.outbox.items.length}) and interrupts (${open.length} open)`}>
        {() => <OutboxAndInterrupts conversation={c} />}
      </Section>
    </div>
  );
}

function Timeline({ conversation: c }: { conversation: ConversationView }) {
  return (
    <Section summary="Timeline" initiallyOpen>
      {() => <TimelineList rows={c.timeline} />}
    </Section>
  );
}

function TimelineList({ rows }: { rows: readonly TimelineRow[] }) {
  const listRef = useRef<HTMLOListElement>(null);
  // The newest row in view, like a terminal.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each new row
  useEffect(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [rows]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable list must be reachable by keyboard
    <ol className="rdt-timeline" ref={listRef} aria-label="Timeline" tabIndex={0}>
      {rows.map((row) => (
        <TimelineItem key={row.seq} row={row} />
      ))}
    </ol>
  );
}

/** A row is replaced, never changed (`foldEvent`): one that did not move is not redrawn. */
const TimelineItem = memo(function TimelineItem({ row }: { row: TimelineRow }) {
  return (
    <li className={`rdt-tone-${row.tone}`}>
      <time>{clock(row.at)}</time> {row.text}
    </li>
  );
});

/**
 * A table of the panel: its empty state when there are no rows, else the rows under their
 * column heads, in a box that scrolls and is reachable by keyboard.
 */
function ScrollTable(props: {
  label: string;
  empty: string;
  columns: readonly string[];
  rows: number;
  children: ReactNode;
}) {
  if (props.rows === 0) return <p className="rdt-dim">{props.empty}</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable table must be reachable by keyboard
    <div className="rdt-scroll" tabIndex={0}>
      <table className="rdt-table" aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

function EventsTable({ conversation: c }: { conversation: ConversationView }) {
  return (
    <ScrollTable
      label="Events"
      empty="No event yet."
      columns={['Offset', 'Type', 'At', '+ms', 'Batch', 'Detail']}
      rows={c.events.length}
    >
      {c.events.map((e) => (
        <EventItem key={`${e.runId} ${e.offset}`} event={e} />
      ))}
    </ScrollTable>
  );
}

const EventItem = memo(function EventItem({ event: e }: { event: EventRow }) {
  return (
    <tr data-offset={e.offset}>
      <td>{e.offset}</td>
      <td>{e.type}</td>
      <td>{clock(e.at)}</td>
      <td>{e.sinceRequest ?? ''}</td>
      <td>{e.batch}</td>
      <td>{e.detail}</td>
    </tr>
  );
});

function RequestsTable({ conversation: c }: { conversation: ConversationView }) {
  return (
    <ScrollTable
      label="Requests"
      empty="No request yet."
      columns={['At', 'Request', 'after=', 'Status', 'ms', 'End']}
      rows={c.requests.length}
    >
      {c.requests.map((r) => (
        <tr key={r.id} data-after={r.after ?? undefined}>
          <td>{clock(r.at)}</td>
          <td title={r.path}>
            {r.method} {shortIds(r.path)}
          </td>
          <td>{r.after ?? ''}</td>
          <td className={r.error ? 'rdt-warn' : undefined}>
            {r.status ?? (r.error ? '✕' : '…')}
            {r.error ? ` ${r.error.code}` : ''}
          </td>
          <td>{r.ms ?? ''}</td>
          <td>{r.end ? `${r.end.outcome}, ${r.end.events} events, ${r.end.ms} ms` : ''}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

function RetriesTable({ conversation: c }: { conversation: ConversationView }) {
  return (
    <ScrollTable
      label="Retries"
      empty="No retry."
      columns={['At', 'Path', 'Attempt', 'Delay', 'Retry-After', 'Error']}
      rows={c.retries.length}
    >
      {c.retries.map((r) => (
        <tr key={`${r.at} ${r.path} ${r.attempt}`}>
          <td>{clock(r.at)}</td>
          <td>{r.path}</td>
          <td>{r.attempt}</td>
          <td>{r.delay === null ? `gave up (${r.gaveUp})` : `${r.delay} ms`}</td>
          <td>{r.retryAfter === null ? '' : `${r.retryAfter} s`}</td>
          <td>{errorText(r.error)}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

function OutboxAndInterrupts({ conversation: c }: { conversation: ConversationView }) {
  return (
    <>
      <h3 className="rdt-sub">Outbox</h3>
      {c.outbox.items.length === 0 ? (
        <p className="rdt-dim">
          Empty{c.outbox.lastMove ? ` (last: ${c.outbox.lastMove} at ${clock(c.outbox.at!)})` : ''}.
        </p>
      ) : (
        <ul className="rdt-list" aria-label="Outbox">
          {c.outbox.items.map((item) => (
            <li key={item.runId}>
              <code>{shortIds(item.runId)}</code> {item.kind}
              {item.runId === c.outbox.sending ? ' · sending' : ' · queued'}
              {item.attachments > 0 ? ` · ${item.attachments} files` : ''}
              {item.text ? ` · “${item.text}”` : ''}
              {item.error ? <span className="rdt-warn"> · {errorText(item.error)}</span> : null}
            </li>
          ))}
        </ul>
      )}
      <h3 className="rdt-sub">Interrupts</h3>
      {c.interrupts.length === 0 ? (
        <p className="rdt-dim">None.</p>
      ) : (
        <ul className="rdt-list" aria-label="Interrupts">
          {c.interrupts.map((i) => (
            <li key={i.id}>
              <code>{shortIds(i.id)}</code> {i.reason}
              {i.tool ? ` · ${i.tool}` : ''} · {i.status}
              {i.pending ? ` (${i.pending})` : ''}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
