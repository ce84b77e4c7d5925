import { useId } from 'react';
import { cx } from '../cx.js';
import type { ChatLabels } from '../labels.js';
import { CardSection } from './card-section.js';
import type { InterruptCardProps } from './interrupt-card.js';

/**
 * A browser-side tool: "running in this page" while it runs; after a reload cut it (and
 * it is not idempotent), the question to the person — run it again, or cancel.
 */
export function ToolRunCard(props: InterruptCardProps & { labels: ChatLabels }) {
  const { interrupt: i, labels } = props;
  const name = i.tool?.name ?? i.reason;
  if (i.execution !== 'interrupted') {
    return (
      <p
        className={cx('rc-interrupt-answer', props.className)}
        role="status"
        data-interrupt-id={i.id}
        data-interrupt-status="open"
        data-execution={i.execution ?? undefined}
      >
        {i.execution === 'running' ? labels.toolRunningHere(name) : labels.toolWaiting(name)}
      </p>
    );
  }
  return <InterruptedTool {...props} name={name} />;
}

function InterruptedTool(props: InterruptCardProps & { labels: ChatLabels; name: string }) {
  const { interrupt: i, labels } = props;
  const title = useId();
  return (
    <CardSection
      id={i.id}
      kind="tool"
      titleId={title}
      title={labels.toolInterrupted(props.name)}
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
