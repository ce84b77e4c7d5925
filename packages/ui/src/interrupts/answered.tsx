import type { ChatInterrupt } from '@resumable/hooks/core';
import { cx } from '../cx.js';
import type { ChatLabels } from '../labels.js';

/** What became of an interrupt, in words: "Approved", "Denied: reason", "Cancelled"… */
export function answeredText(i: ChatInterrupt, labels: ChatLabels): string {
  const summary = summaryOf(i, labels);
  if (i.pending === 'queued') return `${summary} — ${labels.answerQueued}`;
  if (i.pending === 'draft') return `${summary} — ${labels.answerDraft}`;
  return summary;
}

function summaryOf(i: ChatInterrupt, labels: ChatLabels): string {
  if (i.status === 'cancelled' || i.answer?.status === 'cancelled') return labels.cancelledAnswer;
  const payload = i.answer?.payload as Record<string, unknown> | undefined;
  if (i.answeredHere || i.pending !== null) return answerWords(i, payload, labels);
  // Another tab or device answered: its answer when the server shares it.
  return payload === undefined
    ? labels.answeredElsewhere
    : labels.answeredElsewhereAs(answerWords(i, payload, labels));
}

function answerWords(
  i: ChatInterrupt,
  payload: Record<string, unknown> | undefined,
  labels: ChatLabels,
): string {
  if (i.reason === 'tool_approval') {
    if (payload?.approved === true) return labels.approved;
    const reason =
      typeof payload?.reason === 'string' && payload.reason !== '' ? payload.reason : null;
    return labels.denied(reason);
  }
  // Any JSON answers (a bare 42 from another client too): `in` would throw on a primitive.
  const p = Object(payload) as Record<string, unknown>;
  const value = 'answer' in p ? p.answer : 'result' in p ? p.result : (p.error ?? payload);
  return labels.answered(typeof value === 'string' ? value : JSON.stringify(value ?? null));
}

export function AnsweredInterrupt(props: {
  interrupt: ChatInterrupt;
  labels: ChatLabels;
  className?: string | undefined;
}) {
  const { interrupt: i, labels } = props;
  return (
    <p
      className={cx('rc-interrupt-answer', props.className)}
      data-interrupt-id={i.id}
      data-interrupt-status={i.status}
      data-pending={i.pending ?? undefined}
      data-answered-here={i.answeredHere || undefined}
    >
      {answeredText(i, labels)}
    </p>
  );
}
