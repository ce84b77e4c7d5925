import type { ChatInterrupt } from '@resumable/hooks/core';
// One derivation of a tool call's status: the hooks' turn view's.
import { toolCallStatus } from '@resumable/hooks/turns';
import type { RunToolCall } from '@resumable/protocol';
import type { ChatMessage } from './controller-types.js';
import { type ChatLabels, useLabels } from './labels.js';
import { useChunk } from './lazy-chunk.js';
import { partsChunk } from './lazy-parts.js';
import { messageStatus } from './message-status.js';
import { ToolResultText } from './tool-result.js';

/** Props of {@link ToolCall}: the call, what answered it, and its words. */
export interface ToolCallProps {
  /** The call, one of an assistant message's `toolCalls`: its id, name and arguments. */
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
  /**
   * Overrides of its words: the states (`toolRunning`, `toolDone`, `toolFailed`,
   * `toolAwaitingApproval`, `toolDenied`, `toolCancelled`), `toolArguments` and
   * `toolResult`. What is left out keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to its `<details>` (which always has `rc-tool`). */
  className?: string;
}

/**
 * A tool call: its name and status in a summary; arguments as they stream (pretty JSON once
 * complete) and the result inside. The result carries its own message DOM contract. Drawn by
 * the transcript's parts chunk (`partsChunk`): nothing until it is there.
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
  const parts = useChunk(partsChunk);
  if (!parts) return null;
  return (
    <parts.ToolCallCard
      call={call}
      status={toolCallStatus(result, ended, interrupt)}
      result={
        result
          ? {
              id: result.id,
              status: messageStatus(result),
              text: <ToolResultText result={result} />,
            }
          : null
      }
      defaultOpen={defaultOpen}
      labels={labels}
      className={className}
    />
  );
}
