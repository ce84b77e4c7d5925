import { useId } from 'react';
import { cx } from '../cx.js';
import type { ChatLabels } from '../labels.js';
import type { InterruptCardProps } from './interrupt-card.js';
import { useCardFocus } from './use-card-focus.js';

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
        {labels.toolRunningHere(name)}
      </p>
    );
  }
  return <InterruptedTool {...props} name={name} />;
}

function InterruptedTool(props: InterruptCardProps & { labels: ChatLabels; name: string }) {
  const { interrupt: i, labels } = props;
  const ref = useCardFocus<HTMLElement>();
  const title = useId();
  return (
    <section
      ref={ref}
      tabIndex={-1}
      className={cx('rc-interrupt', 'rc-interrupt--tool', props.className)}
      aria-labelledby={title}
      data-interrupt-id={i.id}
      data-interrupt-status="open"
      data-execution="interrupted"
    >
      <p id={title} className="rc-interrupt__title">
        {labels.toolInterrupted(props.name)}
      </p>
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
    </section>
  );
}
