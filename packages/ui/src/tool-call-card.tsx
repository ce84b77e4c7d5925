import type { ToolCallStatus } from '@resumable/hooks/turns';
import type { RunToolCall } from '@resumable/protocol';
import type { ReactNode } from 'react';
import { cx } from './cx.js';
import type { ChatLabels } from './labels.js';
import type { MessageStatus } from './message-status.js';
import { PrettyJson } from './pretty-json.js';

// What `<ToolCall>` draws, in the transcript's parts chunk: it takes what its wrapper has
// worked out (status, labels, the result's text), so the chunk shares no module with the
// first paint but the few it draws with.

export interface ToolCallCardProps {
  call: RunToolCall;
  status: ToolCallStatus;
  /** The `role: 'tool'` message answering the call, once it exists: its id, status and text. */
  result: { id: string; status: MessageStatus; text: ReactNode } | null;
  defaultOpen: boolean;
  labels: ChatLabels;
  className: string | undefined;
}

/** The label of each status. */
export function toolStatusLabel(status: ToolCallStatus, labels: ChatLabels): string {
  switch (status) {
    case 'awaiting_approval':
      return labels.toolAwaitingApproval;
    case 'running':
      return labels.toolRunning;
    case 'done':
      return labels.toolDone;
    case 'denied':
      return labels.toolDenied;
    case 'cancelled':
      return labels.toolCancelled;
    case 'failed':
      return labels.toolFailed;
  }
}

export function ToolCallCard({
  call,
  status,
  result,
  defaultOpen,
  labels,
  className,
}: ToolCallCardProps) {
  const args = call.function.arguments;
  return (
    <details
      className={cx('rc-tool', className)}
      data-tool-call-id={call.id}
      data-tool-status={status}
      open={defaultOpen || undefined}
    >
      <summary className="rc-tool__summary">
        <span className="rc-tool__name">{call.function.name}</span>
        <span className={cx('rc-badge', `rc-badge--${status}`)}>
          {toolStatusLabel(status, labels)}
        </span>
      </summary>
      <div className="rc-tool__body">
        <div className="rc-tool__section">
          <div className="rc-tool__label">{labels.toolArguments}</div>
          <pre
            className="rc-tool__json"
            data-part="arguments"
            data-streaming={call.streaming || undefined}
          >
            {call.streaming ? args : <PrettyJson text={args} />}
          </pre>
        </div>
        {result ? (
          <div
            className="rc-tool__section"
            data-message-id={result.id}
            data-role="tool"
            data-status={result.status}
          >
            <div className="rc-tool__label">{labels.toolResult}</div>
            <pre className="rc-tool__json" data-part="result">
              {result.text}
            </pre>
          </div>
        ) : null}
      </div>
    </details>
  );
}
