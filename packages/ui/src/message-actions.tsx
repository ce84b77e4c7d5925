import type { ReactNode, Ref } from 'react';
import { ActionButton } from './action-button.js';
import type { ChatController, ChatMessage } from './controller-types.js';
import { CopyButton } from './copy-button.js';
import { cx } from './cx.js';
import { EditIcon, RetryIcon } from './icons.js';
import type { ChatLabels } from './labels.js';
import { BranchNav } from './lazy-parts.js';

/**
 * What a message can do besides copy: `<MessageList>` and `<Message>` props. A missing one
 * hides its button. Pass stable functions (the controller's are), and a rejected promise
 * is the controller's to show (its `error`).
 */
export interface MessageActionHandlers {
  /** A new answer to the prompt of this answer (`controller.regenerate`). */
  onRegenerate?: ((messageId: string) => unknown) | undefined;
  /** The prompt asked again as `content` (`controller.edit`); shows the inline editor. */
  onEdit?: ((messageId: string, content: string) => unknown) | undefined;
  /** Shows another version (`controller.switchBranch`); shows ‹ n / m ›. */
  onSwitchBranch?: ((messageId: string, index: number) => unknown) | undefined;
}

/** The controller's branch actions as `MessageActionHandlers` (only those it has). */
export function branchActions(
  c: Pick<ChatController, 'regenerate' | 'edit' | 'switchBranch'>,
): MessageActionHandlers {
  return {
    ...(c.regenerate ? { onRegenerate: c.regenerate } : {}),
    ...(c.edit ? { onEdit: c.edit } : {}),
    ...(c.switchBranch ? { onSwitchBranch: c.switchBranch } : {}),
  };
}

/** Calls an action; its failure is already the controller's to show. */
export function act(run: () => unknown): void {
  void Promise.resolve()
    .then(run)
    .catch(() => {});
}

/**
 * Props of {@link MessageActions}: the message, what its buttons do (the handlers it
 * extends), and its words.
 */
export interface MessageActionsProps extends MessageActionHandlers {
  /** The message the row acts on: its id for the handlers, its `branch` for ‹ n / m ›. */
  message: ChatMessage;
  /** The message's text (what Copy copies; no Copy when empty or absent). */
  copyText?: string;
  /** Opens the inline editor (prompts). */
  onStartEdit?: (() => void) | undefined;
  /** Receives the Edit button, e.g. to give it focus back when the inline editor closes. */
  editButtonRef?: Ref<HTMLButtonElement>;
  /**
   * Its words, whole (`useLabels()` merges a partial set): `copyMessage`, `copied`,
   * `regenerate`, `editMessage`, and the branch navigation's `previousBranch`, `nextBranch`,
   * `branchPosition` and `branchNav`.
   */
  labels: ChatLabels;
  /** First in the row, at the message's edge (an "ended" badge). */
  children?: ReactNode;
}

/**
 * The row under a message: how it ended (a badge, when it was cut short), ‹ n / m › when it
 * has versions (both always shown), then its tools — copy, regenerate (answers), edit
 * (prompts) — shown on hover and on keyboard focus.
 */
export function MessageActions({
  message,
  copyText,
  onRegenerate,
  onSwitchBranch,
  onStartEdit,
  editButtonRef,
  labels,
  children,
}: MessageActionsProps) {
  const branch = message.branch && message.branch.count > 1 ? message.branch : null;
  const tools = Boolean(copyText) || Boolean(onRegenerate) || Boolean(onStartEdit);
  if (!branch && !tools && !children) return null;
  return (
    <div className="rc-message__actions">
      {children}
      {branch && onSwitchBranch ? (
        <BranchNav
          messageId={message.id}
          branch={branch}
          onSwitch={(id, index) => act(() => onSwitchBranch(id, index))}
          labels={labels}
        />
      ) : null}
      {tools ? (
        <div className="rc-message__tools" data-part="tools">
          {copyText ? (
            <CopyButton text={copyText} label={labels.copyMessage} copiedLabel={labels.copied} />
          ) : null}
          {onRegenerate ? (
            <ActionButton
              label={labels.regenerate}
              onClick={() => act(() => onRegenerate(message.id))}
            >
              <RetryIcon />
            </ActionButton>
          ) : null}
          {onStartEdit ? (
            <ActionButton
              label={labels.editMessage}
              onClick={onStartEdit}
              buttonRef={editButtonRef}
            >
              <EditIcon />
            </ActionButton>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** "Stopped" or "Interrupted by an error": a reply cut short (its text is kept). */
export function EndedBadge({
  status,
  labels,
}: {
  status: 'stopped' | 'error';
  labels: ChatLabels;
}) {
  return (
    <span className={cx('rc-badge', `rc-badge--${status}`)} data-part="ended">
      {status === 'stopped' ? labels.stopped : labels.errored}
    </span>
  );
}
