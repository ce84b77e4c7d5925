import type { ChatInterrupt } from '@resumable/hooks/core';
import { isolateName, type PutName, plainName } from '../bidi-name.js';
import { cx } from '../cx.js';
import type { ChatLabels } from '../labels.js';

/** What became of an interrupt, in words: "Approved", "Denied: reason", "Cancelled"… */
export function answeredText(i: ChatInterrupt, labels: ChatLabels): string {
  return answerParts(i, labels, plainName).join('');
}

/** The summary (its answer or reason a name, put as `put` puts it) and what waits. */
function answerParts(i: ChatInterrupt, labels: ChatLabels, put: PutName) {
  const waiting =
    i.pending === 'queued' ? labels.answerQueued : i.pending === 'draft' ? labels.answerDraft : '';
  return [summaryOf(i, labels, put), waiting && ` — ${waiting}`];
}

function summaryOf(i: ChatInterrupt, labels: ChatLabels, put: PutName) {
  if (i.status === 'cancelled' || i.answer?.status === 'cancelled') return labels.cancelledAnswer;
  const payload = i.answer?.payload as Record<string, unknown> | undefined;
  if (i.answeredHere || i.pending !== null) return answerWords(i, payload, labels, put);
  // Another tab or device answered: its answer when the server shares it.
  return payload === undefined
    ? labels.answeredElsewhere
    : put(labels.answeredElsewhereAs, answerWords(i, payload, labels, plainName));
}

function answerWords<T>(
  i: ChatInterrupt,
  payload: Record<string, unknown> | undefined,
  labels: ChatLabels,
  put: (sentence: (name: string) => string, name: string) => T,
): T | string {
  if (i.reason === 'tool_approval') {
    if (payload?.approved === true) return labels.approved;
    const reason =
      typeof payload?.reason === 'string' && payload.reason !== '' ? payload.reason : null;
    return reason === null ? labels.denied(null) : put(labels.denied, reason);
  }
  // Any JSON answers (a bare 42 from another client too): `in` would throw on a primitive.
  const p = Object(payload) as Record<string, unknown>;
  const value = 'answer' in p ? p.answer : 'result' in p ? p.result : (p.error ?? payload);
  return put(labels.answered, typeof value === 'string' ? value : JSON.stringify(value ?? null));
}

/**
 * What the answer was, for its colour (`data-outcome`): an approval given, a denial, a
 * cancellation, or another answer (a question's, or one given elsewhere and not shared).
 */
export function answerOutcome(i: ChatInterrupt): 'approved' | 'denied' | 'cancelled' | 'answered' {
  if (i.status === 'cancelled' || i.answer?.status === 'cancelled') return 'cancelled';
  if (i.reason !== 'tool_approval') return 'answered';
  const payload = i.answer?.payload as { approved?: unknown } | undefined;
  // Answered elsewhere and not shared: what it was is not known here (as `summaryOf` says).
  if (!i.answeredHere && i.pending === null && payload === undefined) return 'answered';
  return payload?.approved === true ? 'approved' : 'denied';
}

/**
 * An answered interrupt as the transcript keeps it: one line saying what the answer was
 * ({@link answeredText}, e.g. "Approved", "Denied: reason", "Answered: 42") and, when it is
 * not sent yet, that it waits. It carries `data-interrupt-id`, `data-interrupt-status` and
 * `data-outcome` (approved, denied, cancelled or answered). `<InterruptCard>` shows it once
 * its interrupt is answered.
 */
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
      data-outcome={answerOutcome(i)}
      data-pending={i.pending ?? undefined}
      data-answered-here={i.answeredHere || undefined}
    >
      {answerParts(i, labels, isolateName)}
    </p>
  );
}
