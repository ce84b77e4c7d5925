import type { RunStatus } from '@resumable/protocol';
import { useEffect, useRef, useState } from 'react';
import type { ChatLabels } from './labels.js';

/**
 * What `<ReplyAnnouncer>`'s live region says (in the transcript's parts chunk): the start of
 * a reply, then its end, once each, from the state it first sees.
 */
export function ReplyAnnouncement({
  isStreaming,
  status,
  labels,
}: {
  isStreaming: boolean;
  status: RunStatus;
  labels: ChatLabels;
}) {
  const [message, setMessage] = useState('');
  const was = useRef(isStreaming);
  useEffect(() => {
    if (was.current === isStreaming) return;
    was.current = isStreaming;
    setMessage(announcement(isStreaming, status, labels));
  }, [isStreaming, status, labels]);
  return message;
}

function announcement(streaming: boolean, status: RunStatus, labels: ChatLabels): string {
  if (streaming) return labels.replying;
  return status === 'cancelled' ? labels.replyStopped : labels.replyFinished;
}
