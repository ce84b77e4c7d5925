import type { ResumableError, RunStatus } from '@resumable/protocol';
import { useEffect, useRef, useState } from 'react';
import type { ConnectionInfo } from './controller-types.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';

/** An error as the status shows it: a `ResumableError`, or a run's `{ message, code }`. */
export type StatusError = Pick<ResumableError, 'message'> & { code?: string | undefined };

export interface ConnectionStatusProps {
  connection: ConnectionInfo;
  /** The run's status: tells "offline while the answer keeps going" from plain offline. */
  status?: RunStatus;
  /** The session's error (failed send, failed run), shown with Retry. */
  error?: StatusError | null;
  /** Shows a Retry button beside an error. */
  onRetry?: () => void;
  /**
   * How long "caught up n events" stays after a resume, in ms.
   * @default 4000
   */
  resumedFor?: number;
  labels?: Partial<ChatLabels>;
  className?: string;
}

/**
 * The truth about the connection, from the transport's own facts: reconnecting (attempt n,
 * next try in s), offline, resumed (n events caught up), and errors (`role="alert"`, with
 * Retry), including a lost run (`agent_lost`). Says nothing while all is well.
 */
export function ConnectionStatus({
  connection,
  status = 'idle',
  error = null,
  onRetry,
  resumedFor = 4000,
  labels: labelsProp,
  className,
}: ConnectionStatusProps) {
  const labels = useLabels(labelsProp);
  const now = useNow(connection.nextRetryAt !== null);
  const resumed = useResumedNotice(connection, resumedFor);
  const text =
    connectionStatusText(connection, status, labels, now) ??
    (resumed !== null ? labels.resumed(resumed) : null);
  const shownError = connection.phase === 'error' ? (connection.lastError ?? error) : error;

  return (
    <div
      className={cx('rc-connection', className)}
      data-phase={connection.phase}
      data-quiet={text === null && !shownError ? '' : undefined}
    >
      {/* Always mounted: a live region must exist before its text changes to be announced. */}
      <div role="status" className="rc-connection__status">
        {text}
      </div>
      {shownError ? (
        <div role="alert" className="rc-connection__alert">
          <span>{errorText(shownError, labels)}</span>
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

/**
 * The status line for a phase, or null when there is nothing to say. Errors are not a status
 * line: they go to the `role="alert"` notice.
 */
export function connectionStatusText(
  connection: ConnectionInfo,
  status: RunStatus,
  labels: ChatLabels,
  now: number,
): string | null {
  switch (connection.phase) {
    case 'reconnecting':
      return labels.reconnecting(Math.max(1, connection.attempt), secondsUntil(connection, now));
    case 'connecting':
      // A first connect is routine; a connect after failures is a reconnect.
      return connection.attempt > 0
        ? labels.reconnecting(connection.attempt, secondsUntil(connection, now))
        : null;
    case 'offline':
      return labels.offline(status === 'running');
    case 'idle':
    case 'streaming':
    case 'finished':
    case 'cancelled':
    case 'error':
      return null;
  }
}

export function errorText(error: StatusError, labels: ChatLabels): string {
  return error.code === 'agent_lost' ? labels.agentLost : labels.error(error.message, error.code);
}

function secondsUntil(connection: ConnectionInfo, now: number): number | null {
  if (connection.nextRetryAt === null) return null;
  return Math.max(0, Math.ceil((connection.nextRetryAt - now) / 1000));
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

/** After each new resume that caught up events: their count, for `ms`; else null. */
function useResumedNotice(connection: ConnectionInfo, ms: number): number | null {
  const seen = useRef(connection.resumes);
  const [visible, setVisible] = useState(false);
  const healthy = connection.phase === 'streaming' || connection.phase === 'finished';
  useEffect(() => {
    if (connection.resumes <= seen.current || !healthy) return;
    seen.current = connection.resumes;
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
