import type { ChatInterrupt } from '@resumable/hooks/core';
import { type ChatLabels, useLabels } from '../labels.js';
import { AnsweredInterrupt } from './answered.js';
import { ApprovalCard } from './approval-card.js';
import { QuestionCard } from './question-card.js';
import { ToolRunCard } from './tool-run-card.js';

export interface InterruptCardProps {
  interrupt: ChatInterrupt;
  /** `useResumableChat().resolve`. */
  onResolve(id: string, payload: unknown): Promise<void> | void;
  /** `useResumableChat().cancel`. */
  onCancel(id: string): Promise<void> | void;
  /** `useResumableChat().rerunTool`: a browser tool cut by a reload, run again. */
  onRerun?(id: string): Promise<void> | void;
  labels?: Partial<ChatLabels>;
  className?: string;
}

/**
 * One interrupt in the transcript: while open, the card that answers it (an approval, a
 * question, a browser tool's progress); once answered (or answered here and waiting to be
 * sent), what the answer was.
 */
export function InterruptCard(props: InterruptCardProps) {
  const labels = useLabels(props.labels);
  const { interrupt: i } = props;
  if (i.status !== 'open' || i.pending !== null) {
    return <AnsweredInterrupt interrupt={i} labels={labels} className={props.className} />;
  }
  const card = { ...props, labels };
  if (i.reason === 'tool_approval') return <ApprovalCard {...card} />;
  if (i.reason === 'client_tool') return <ToolRunCard {...card} />;
  return <QuestionCard {...card} />;
}
