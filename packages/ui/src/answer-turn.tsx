import { messageText } from '@resumable/protocol';
import type { ReactNode } from 'react';
import type { ChatMessage } from './controller-types.js';
import type { ChatLabels } from './labels.js';
import { EndedBadge, type MessageActionHandlers, MessageActions } from './message-actions.js';

/**
 * An answer turn: the messages between two prompts (reasoning, tool calls, text, the
 * continuation after an approval), spaced as one answer, with one action row under its last
 * part — how it ended, ‹ n / m › of its versions, copy of its whole text, regenerate. The
 * row belongs to the turn, not to a message: switching versions replaces the messages and
 * keeps the row, and the focus on its ‹ › buttons.
 */
export function AnswerTurn({
  messages,
  streaming = false,
  labels,
  onRegenerate,
  onSwitchBranch,
  children,
}: Pick<MessageActionHandlers, 'onRegenerate' | 'onSwitchBranch'> & {
  /** The turn's messages, oldest first. */
  messages: readonly ChatMessage[];
  /**
   * The reply on its way is this turn's (a tool call's arguments stream, a tool runs, the
   * text has not started): no copy or regenerate yet, whatever its messages say.
   * @default false
   */
  streaming?: boolean;
  labels: ChatLabels;
  /** The messages, rendered. */
  children: ReactNode;
}) {
  return (
    <div className="rc-turn" data-part="turn">
      {children}
      <TurnActions
        messages={messages}
        streaming={streaming}
        labels={labels}
        onRegenerate={onRegenerate}
        onSwitchBranch={onSwitchBranch}
      />
    </div>
  );
}

/**
 * The action row of a turn (or of an answer shown on its own, a turn of one message): how it
 * ended, ‹ n / m ›, and — once nothing in it streams — copy and regenerate.
 */
export function TurnActions({
  messages,
  streaming = false,
  labels,
  onRegenerate,
  onSwitchBranch,
}: Pick<MessageActionHandlers, 'onRegenerate' | 'onSwitchBranch'> & {
  messages: readonly ChatMessage[];
  /** The reply on its way is this turn's, whatever its messages say. @default false */
  streaming?: boolean;
  labels: ChatLabels;
}) {
  // The versions are those of the turn's first message (the one under the prompt), whatever
  // it is: reasoning, a tool call or text.
  const versioned = messages.find((m) => m.branch && m.branch.count > 1) ?? messages[0];
  if (!versioned) return null;
  // While it streams only ‹ n / m ›: no copy of half a text.
  if (streaming || messages.some((m) => m.streaming)) {
    return <MessageActions message={versioned} labels={labels} onSwitchBranch={onSwitchBranch} />;
  }
  const ended = messages.findLast((m) => m.ended)?.ended;
  return (
    <MessageActions
      message={versioned}
      copyText={answerText(messages)}
      labels={labels}
      onRegenerate={onRegenerate}
      onSwitchBranch={onSwitchBranch}
    >
      {ended ? <EndedBadge status={ended} labels={labels} /> : null}
    </MessageActions>
  );
}

/** What "Copy message" copies of a turn: the text of its answers (not reasoning, not tools). */
export function answerText(messages: readonly ChatMessage[]): string {
  return messages
    .filter((m) => m.role === 'assistant')
    .map((m) => messageText(m))
    .filter((text) => text !== '')
    .join('\n\n');
}
