import type { ChatInterrupt } from '@resumable/hooks/core';
// One derivation of a tool call's status: the hooks' turn view's.
import { type ToolCallStatus, toolCallStatus } from '@resumable/hooks/turns';
import type { RunToolCall } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { ChatMessage } from './controller-types.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { messageStatus } from './message-status.js';
import { PrettyJson, prettyJson } from './pretty-json.js';

export interface ToolCallProps {
  call: RunToolCall;
  /** The `role: 'tool'` message answering this call, once it exists. */
  result?: ChatMessage | undefined;
  /** How the assistant message holding the call ended, when it was cut short. */
  ended?: 'stopped' | 'error' | undefined;
  /**
   * The interrupt asked about this call (`interrupt.toolCallId === call.id`), if any: an
   * approval open, denied or cancelled decides the status before any result does.
   */
  interrupt?: ChatInterrupt | undefined;
  /**
   * Show arguments and result without a click.
   * @default false
   */
  defaultOpen?: boolean;
  labels?: Partial<ChatLabels>;
  className?: string;
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

/**
 * A tool call: its name and status in a summary; arguments as they stream (pretty JSON once
 * complete) and the result inside. The result carries its own message DOM contract.
 */
export function ToolCall({
  call,
  result,
  ended,
  interrupt,
  defaultOpen = false,
  labels: labelsProp,
  className,
}: ToolCallProps) {
  const labels = useLabels(labelsProp);
  const status = toolCallStatus(result, ended, interrupt);
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
            data-status={messageStatus(result)}
          >
            <div className="rc-tool__label">{labels.toolResult}</div>
            <pre className="rc-tool__json" data-part="result">
              <ToolResultText result={result} />
            </pre>
          </div>
        ) : null}
      </div>
    </details>
  );
}

/** The text of a tool message: its `error` when it failed, else its content (pretty JSON). */
export function toolResultText(result: ChatMessage): string {
  return errorOf(result) ?? prettyJson(messageText(result));
}

const errorOf = (result: ChatMessage) =>
  'error' in result && typeof result.error === 'string' ? result.error : null;

/** toolResultText as an element: the JSON is indented again only when it changes. */
export function ToolResultText({ result }: { result: ChatMessage }) {
  return errorOf(result) ?? <PrettyJson text={messageText(result)} />;
}
