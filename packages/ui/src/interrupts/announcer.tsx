import type { ChatInterrupt } from '@resumable/hooks/core';
import { useEffect, useRef, useState } from 'react';
import type { ChatLabels } from '../labels.js';

/**
 * A polite, visually hidden live region that says once, per interrupt, that the assistant
 * waits for an answer ("The assistant needs your answer: Allow delete_file?").
 */
export function InterruptAnnouncer(props: {
  interrupts: readonly ChatInterrupt[] | undefined;
  labels: ChatLabels;
}) {
  const { interrupts, labels } = props;
  const [message, setMessage] = useState('');
  const told = useRef(new Set<string>());
  useEffect(() => {
    const fresh = (interrupts ?? []).filter(
      (i) =>
        i.status === 'open' &&
        i.pending === null &&
        i.execution !== 'running' &&
        !told.current.has(i.id),
    );
    if (fresh.length === 0) return;
    for (const i of fresh) told.current.add(i.id);
    setMessage(fresh.map((i) => labels.needsAnswer(titleOf(i, labels))).join(' '));
  }, [interrupts, labels]);
  return (
    <div
      className="rc-sr-only"
      aria-live="polite"
      aria-atomic="true"
      data-part="interrupt-announcer"
    >
      {message}
    </div>
  );
}

/** The heading a card shows for `i`. */
export function titleOf(i: ChatInterrupt, labels: ChatLabels): string {
  const name = i.tool?.name ?? i.reason;
  if (i.reason === 'tool_approval')
    return labels.approvalTitle(i.tool?.name ?? i.message ?? i.reason);
  if (i.reason === 'client_tool') return labels.toolInterrupted(name);
  return i.message ?? labels.questionTitle;
}
