import type { KeyboardEvent } from 'react';
import { ActionButton } from './action-button.js';
import { ChevronLeftIcon, ChevronRightIcon } from './branch-icons.js';
import type { BranchInfo } from './controller-types.js';
import type { ChatLabels } from './labels.js';

/** Props of {@link BranchNav}: the message shown, its versions, and how to switch. */
export interface BranchNavProps {
  /** The message shown now (one of `branch.siblingIds`). */
  messageId: string;
  /** Its versions (`message.branch`): the 0-based `index` shown among `count`. */
  branch: BranchInfo;
  /** Shows sibling `index` (0-based) instead: `controller.switchBranch`. */
  onSwitch: (messageId: string, index: number) => void;
  /**
   * Its words, whole (`useLabels()` merges a partial set): `previousBranch`, `nextBranch`,
   * `branchPosition` (the visible `n / m`) and `branchNav` (the group's name).
   */
  labels: ChatLabels;
}

/**
 * ‹ n / m ›: the versions of a message (regenerated answers, edited prompts). Buttons with
 * names; ← and → (Home, End) move while it has focus. At either end the button stays
 * focusable (`aria-disabled`), so the keyboard user's focus never falls to the page.
 */
export function BranchNav({ messageId, branch, onSwitch, labels }: BranchNavProps) {
  const { index, count } = branch;
  const go = (to: number) => {
    if (to >= 0 && to < count && to !== index) onSwitch(messageId, to);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const to =
      e.key === 'ArrowLeft'
        ? index - 1
        : e.key === 'ArrowRight'
          ? index + 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? count - 1
              : null;
    if (to === null) return;
    e.preventDefault();
    go(to);
  };
  return (
    // A fieldset is a group: its name says which version this is; the keys come from its buttons.
    <fieldset
      className="rc-branch-nav"
      data-part="branch-nav"
      aria-label={labels.branchNav(index + 1, count)}
      onKeyDown={onKeyDown}
    >
      <ActionButton
        label={labels.previousBranch}
        disabled={index === 0}
        onClick={() => go(index - 1)}
      >
        <ChevronLeftIcon />
      </ActionButton>
      <span className="rc-branch-nav__position" aria-hidden="true">
        {labels.branchPosition(index + 1, count)}
      </span>
      <ActionButton
        label={labels.nextBranch}
        disabled={index === count - 1}
        onClick={() => go(index + 1)}
      >
        <ChevronRightIcon />
      </ActionButton>
    </fieldset>
  );
}
