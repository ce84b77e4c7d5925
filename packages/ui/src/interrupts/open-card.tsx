// Loaded on demand by <InterruptCard> (a dynamic import): only a chat that is asked something
// fetches the cards that answer.
import type { ChatLabels } from '../labels.js';
import { ApprovalCard } from './approval-card.js';
import type { InterruptCardProps } from './card-props.js';
import { InterruptedTool } from './interrupted-tool.js';
import { QuestionCard } from './question-card.js';

/**
 * The card answering an open interrupt: an approval, an interrupted browser tool, a question
 * (a running browser tool is a status line, not loaded here).
 */
export function OpenCard(props: InterruptCardProps & { labels: ChatLabels }) {
  const { reason } = props.interrupt;
  if (reason === 'tool_approval') return <ApprovalCard {...props} />;
  if (reason === 'client_tool') return <InterruptedTool {...props} />;
  return <QuestionCard {...props} />;
}
