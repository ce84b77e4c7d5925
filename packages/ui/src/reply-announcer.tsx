import type { RunStatus } from '@resumable/protocol';
import { useEffect, useRef, useState } from 'react';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';

export interface ReplyAnnouncerProps {
  /** A reply is streaming. */
  isStreaming: boolean;
  /** The run's status when the reply ends: a cancelled run is announced as stopped. */
  status?: RunStatus;
  labels?: Partial<ChatLabels>;
  className?: string;
}

/**
 * A polite, visually hidden live region that says "Assistant is replying" when a reply starts
 * and "Reply finished" when it ends: once each, never per token.
 */
export function ReplyAnnouncer({
  isStreaming,
  status = 'idle',
  labels: labelsProp,
  className,
}: ReplyAnnouncerProps) {
  const labels = useLabels(labelsProp);
  const [message, setMessage] = useState('');
  const was = useRef(isStreaming);
  useEffect(() => {
    if (was.current === isStreaming) return;
    was.current = isStreaming;
    setMessage(announcement(isStreaming, status, labels));
  }, [isStreaming, status, labels]);
  return (
    <div
      className={cx('rc-sr-only', className)}
      aria-live="polite"
      aria-atomic="true"
      data-part="announcer"
    >
      {message}
    </div>
  );
}

function announcement(streaming: boolean, status: RunStatus, labels: ChatLabels): string {
  if (streaming) return labels.replying;
  return status === 'cancelled' ? labels.replyStopped : labels.replyFinished;
}
