import type { RunToolCall } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { ChatMessage } from './controller-types.js';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { messageStatus } from './message-status.js';
import { PrettyJson, prettyJson } from './pretty-json.js';

export type ToolCallStatus = 'running' | 'done' | 'error' | 'stopped';

export interface ToolCallProps {
  call: RunToolCall;
  /** The `role: 'tool'` message answering this call, once it exists. */
  result?: ChatMessage | undefined;
  /** How the assistant message holding the call ended, when it was cut short. */
  ended?: 'stopped' | 'error' | undefined;
  /**
   * Show arguments and result without a click.
   * @default false
   */
  defaultOpen?: boolean;
  labels?: Partial<ChatLabels>;
  className?: string;
}

export function toolCallStatus(
  result: ChatMessage | undefined,
  ended: 'stopped' | 'error' | undefined,
): ToolCallStatus {
  if (result) return messageStatus(result) === 'error' ? 'error' : 'done';
  if (ended === 'error') return 'error';
  if (ended === 'stopped') return 'stopped';
  return 'running';
}

/**
 * A tool call: its name and status in a summary; arguments as they stream (pretty JSON once
 * complete) and the result inside. The result carries its own message DOM contract.
 */
export function ToolCall({
  call,
  result,
  ended,
  defaultOpen = false,
  labels: labelsProp,
  className,
}: ToolCallProps) {
  const labels = useLabels(labelsProp);
  const status = toolCallStatus(result, ended);
  const statusText = {
    running: labels.toolRunning,
    done: labels.toolDone,
    error: labels.toolError,
    stopped: labels.toolStopped,
  }[status];
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
        <span className={cx('rc-badge', `rc-badge--${status}`)}>{statusText}</span>
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
