import { useId } from 'react';
import type { ChatLabels } from '../labels.js';
import type { InterruptCardProps } from './card-props.js';
import { CardSection } from './card-section.js';

/**
 * A browser tool cut by a reload (and not safe to run twice): the question to the person —
 * run it again, or cancel.
 */
export function InterruptedTool(props: InterruptCardProps & { labels: ChatLabels }) {
  const { interrupt: i, labels } = props;
  const name = i.tool?.name ?? i.reason;
  const title = useId();
  return (
    <CardSection
      id={i.id}
      kind="tool"
      titleId={title}
      title={labels.toolInterrupted(name)}
      className={props.className}
      execution="interrupted"
    >
      <div className="rc-interrupt__actions">
        <button
          type="button"
          className="rc-button rc-button--primary"
          onClick={() => void props.onRerun?.(i.id)}
        >
          {labels.rerunTool}
        </button>
        <button type="button" className="rc-button" onClick={() => void props.onCancel(i.id)}>
          {labels.cancelInterrupt}
        </button>
      </div>
    </CardSection>
  );
}
