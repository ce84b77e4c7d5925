import type { ChatInterrupt } from '@resumable/hooks/core';
import { isolateName } from '../bidi-name.js';
import { cx } from '../cx.js';
import type { ChatLabels } from '../labels.js';

/** A browser tool running in this page, or waiting for a page that has it: one status line. */
export function ToolStatus(props: {
  interrupt: ChatInterrupt;
  labels: ChatLabels;
  className?: string | undefined;
}) {
  const { interrupt: i, labels } = props;
  const name = i.tool?.name ?? i.reason;
  return (
    <p
      className={cx('rc-interrupt-answer', props.className)}
      role="status"
      data-interrupt-id={i.id}
      data-interrupt-status="open"
      data-execution={i.execution ?? undefined}
    >
      {isolateName(i.execution === 'running' ? labels.toolRunningHere : labels.toolWaiting, name)}
    </p>
  );
}
