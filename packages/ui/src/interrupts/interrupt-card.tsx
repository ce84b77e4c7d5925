import type { ChatInterrupt } from '@resumable/hooks/core';
import { cx } from '../cx.js';
import { type ChatLabels, useLabels } from '../labels.js';
import { chunk, useChunk } from '../lazy-chunk.js';
import { titleOf } from './announcer.js';
import { AnsweredInterrupt } from './answered.js';
import { ApprovalDetails } from './approval-details.js';
import type { InterruptCardProps } from './card-props.js';
import { ToolStatus } from './tool-status.js';

/** The cards that take an answer: fetched the first time one is open. */
export const cardsChunk = chunk(() => import('./open-card.js'));

/**
 * One interrupt in the transcript: while open, the card that answers it (an approval, a
 * question, a browser tool's progress); once answered (or answered here and waiting to be
 * sent), what the answer was. The answering cards load lazily: until they have, and in
 * server HTML, a placeholder of the card's frame and title holds their place.
 */
export function InterruptCard(props: InterruptCardProps) {
  const labels = useLabels(props.labels);
  const { interrupt: i } = props;
  const answered = i.status !== 'open' || i.pending !== null;
  const status = i.reason === 'client_tool' && i.execution !== 'interrupted';
  const loaded = useChunk(cardsChunk, !answered && !status);
  if (answered) {
    return <AnsweredInterrupt interrupt={i} labels={labels} className={props.className} />;
  }
  if (status) return <ToolStatus interrupt={i} labels={labels} className={props.className} />;
  if (!loaded) {
    return <CardPlaceholder interrupt={i} labels={labels} className={props.className} />;
  }
  return <loaded.OpenCard {...props} labels={labels} />;
}

/**
 * What an open card shows before its chunk is there: its frame, title and (an approval's)
 * message and arguments, with the room its controls will take, so nothing moves when they
 * come. Busy, and not the card: it has no `data-interrupt-id` and takes no focus.
 */
function CardPlaceholder({
  interrupt: i,
  labels,
  className,
}: {
  interrupt: ChatInterrupt;
  labels: ChatLabels;
  className?: string | undefined;
}) {
  const kind =
    i.reason === 'tool_approval' ? 'approval' : i.reason === 'client_tool' ? 'tool' : 'question';
  return (
    <div
      className={cx(
        'rc-interrupt',
        `rc-interrupt--${kind}`,
        'rc-interrupt--placeholder',
        className,
      )}
      aria-busy="true"
      data-part="interrupt-placeholder"
    >
      <p className="rc-interrupt__title">{titleOf(i, labels)}</p>
      {kind === 'approval' ? <ApprovalDetails interrupt={i} labels={labels} /> : null}
      <div className="rc-interrupt__reserve" />
    </div>
  );
}
