import type { ResumableError, RunStatus } from '@resumable/protocol';
import { useEffect, useRef, useState } from 'react';
import type { ConnectionInfo } from './controller-types.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';

/** An error as the status shows it: a `ResumableError`, or a run's `{ message, code }`. */
export type StatusError = Pick<ResumableError, 'message'> & { code?: string | undefined };

/** Props of {@link ConnectionStatus}: the transport's facts, the session's error, and its words. */
export interface ConnectionStatusProps {
  /** The transport's state (`useResumableChat().connection`): its phase, retries and errors. */
  connection: ConnectionInfo;
  /** The run's status: tells "offline while the answer keeps going" from plain offline. */
  status?: RunStatus;
  /** The session's error (failed send, failed run), shown with Retry. */
  error?: StatusError | null;
  /**
   * Prompts are waiting to go out while the browser is online (the server did not answer):
   * says "can't reach the server" rather than nothing. @default false
   */
  unsent?: boolean;
  /** Shows "Retry now" beside a reconnect countdown and Retry beside an error. */
  onRetry?: () => void;
  /**
   * How long the connection must stay unhealthy before the line appears, in ms: a reload or
   * a quick reconnect shows nothing.
   * @default 1000
   */
  graceMs?: number;
  /**
   * How long "caught up n events" stays after a resume the user was told about, in ms.
   * @default 4000
   */
  resumedFor?: number;
  /**
   * Overrides of its words: `reconnecting`, `unreachable`, `offline`, `resumed`, `viaTab`,
   * `retryNow`, `retry`, `agentLost` and `error`. What is left out keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to its outer `<div>` (which always has `rc-connection`). */
  className?: string;
}

/**
 * The truth about the connection, from the transport's own facts: can't reach the server
 * (retrying in s, Retry now), offline (only when the browser is), resumed (n events caught
 * up), and errors in plain words (`role="alert"`, with Retry). It overlays the transcript
 * (no layout shift), waits `graceMs` before speaking up, and says nothing while all is well.
 */
export function ConnectionStatus({
  connection,
  status = 'idle',
  error = null,
  unsent = false,
  onRetry,
  graceMs = 1000,
  resumedFor = 4000,
  labels: labelsProp,
  className,
}: ConnectionStatusProps) {
  const labels = useLabels(labelsProp);
  const now = useNow(connection.nextRetryAt !== null);
  const line = connectionStatusText(connection, status, labels, now, unsent);
  // Offline and a reconnect are two troubles, each with its own grace: back online, the
  // reconnect that follows shows only if it takes longer than that (it used to flash
  // "Reconnecting (attempt 1)…" for the ~35 ms before the resumed stream opened).
  const trouble = line === null ? null : connection.phase === 'offline' ? 'offline' : 'reconnect';
  const shown = useAfterGrace(trouble, graceMs);
  const resumed = useResumedNotice(connection, shown, resumedFor);
  // A follower tab's reply arrives through the leader tab: said while it streams, no Retry.
  const via = connection.viaTab === true && connection.phase === 'streaming' ? labels.viaTab : null;
  const text = shown ? line : resumed !== null ? labels.resumed(resumed) : via;
  const retrying = shown && connection.phase !== 'offline';
  const shownError = connection.phase === 'error' ? (connection.lastError ?? error) : error;

  return (
    <div
      className={cx('rc-connection', className)}
      data-phase={connection.phase}
      data-via={connection.viaTab ? 'tab' : undefined}
      data-quiet={text === null && !shownError ? '' : undefined}
    >
      {/* Always mounted: a live region must exist before its text changes to be announced. */}
      <div role="status" className="rc-connection__status">
        {text}
        {retrying && onRetry ? (
          <button type="button" className="rc-button" onClick={onRetry}>
            {labels.retryNow}
          </button>
        ) : null}
      </div>
      {shownError ? (
        <div role="alert" className="rc-connection__alert" data-code={shownError.code}>
          <span title={shownError.message}>{errorText(shownError, labels)}</span>
          {onRetry ? (
            <button type="button" className="rc-button" onClick={onRetry}>
              {labels.retry}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** Codes that mean the server could not be reached (as opposed to a stream that stalled). */
const UNREACHABLE = new Set(['network', 'timeout', 'unexpected_response', 'internal']);

/**
 * The status line for a phase, or null when there is nothing to say. Errors are not a status
 * line: they go to the `role="alert"` notice. `unsent`: prompts wait while the browser is
 * online, so the server is what is missing.
 */
export function connectionStatusText(
  connection: ConnectionInfo,
  status: RunStatus,
  labels: ChatLabels,
  now: number,
  unsent = false,
): string | null {
  const seconds = secondsUntil(connection, now);
  const reconnect = () =>
    connection.lastError && UNREACHABLE.has(connection.lastError.code)
      ? labels.unreachable(seconds)
      : labels.reconnecting(Math.max(1, connection.attempt), seconds);
  switch (connection.phase) {
    case 'reconnecting':
      return reconnect();
    case 'connecting':
      // A first connect is routine; a connect after failures is a reconnect.
      return connection.attempt > 0 ? reconnect() : unsent ? labels.unreachable(seconds) : null;
    case 'offline':
      return labels.offline(status === 'running');
    case 'idle':
    case 'streaming':
    case 'finished':
    case 'cancelled':
      return unsent ? labels.unreachable(seconds) : null;
    case 'error':
      return null;
  }
}

/**
 * An error in plain words, as the `role="alert"` notice shows it: `labels.agentLost` for
 * `agent_lost`, else `labels.error(message, code)`.
 */
export function errorText(error: StatusError, labels: ChatLabels): string {
  return error.code === 'agent_lost' ? labels.agentLost : labels.error(error.message, error.code);
}

function secondsUntil(connection: ConnectionInfo, now: number): number | null {
  if (connection.nextRetryAt === null) return null;
  return Math.max(0, Math.ceil((connection.nextRetryAt - now) / 1000));
}

/**
 * True once the same `kind` of trouble has held for `ms` without a break; false again as
 * soon as it ends or becomes another kind (whose own `ms` starts then).
 */
function useAfterGrace(kind: string | null, ms: number): boolean {
  const [elapsed, setElapsed] = useState<string | null>(null);
  useEffect(() => {
    setElapsed(null);
    if (kind === null || ms <= 0) return;
    const id = setTimeout(() => setElapsed(kind), ms);
    return () => clearTimeout(id);
  }, [kind, ms]);
  return kind !== null && (ms <= 0 || elapsed === kind);
}

/** The clock, ticking each second only while a countdown is on screen. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ticking]);
  return ticking ? now : Date.now();
}

/**
 * After a resume that caught up events, their count for `ms` — only when a problem was on
 * screen before it (a healthy reload resumes too, and must show nothing); else null.
 */
function useResumedNotice(connection: ConnectionInfo, problemShown: boolean, ms: number) {
  const seen = useRef(connection.resumes);
  const armed = useRef(false);
  if (problemShown) armed.current = true;
  const [visible, setVisible] = useState(false);
  const healthy = connection.phase === 'streaming' || connection.phase === 'finished';
  useEffect(() => {
    if (connection.resumes <= seen.current || !healthy) return;
    seen.current = connection.resumes;
    if (!armed.current) return;
    armed.current = false;
    setVisible(true);
    const id = setTimeout(() => setVisible(false), ms);
    return () => {
      clearTimeout(id);
      setVisible(false);
    };
  }, [connection.resumes, healthy, ms]);
  // The count is read live: it grows while the replay after the resume is applied.
  return visible && healthy && connection.caughtUp > 0 ? connection.caughtUp : null;
}
