import type { ReactNode, Ref } from 'react';

/**
 * An icon button named by `label` (also its tooltip). `disabled` keeps it focusable
 * (`aria-disabled`): a keyboard user's focus never falls to the page when an end is reached.
 */
export function ActionButton(props: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  buttonRef?: Ref<HTMLButtonElement> | undefined;
  /** @default 'rc-icon-button' */
  className?: string;
  /** -1 takes it out of the Tab order (a list that moves by arrow keys). @default 0 */
  tabIndex?: number;
  children: ReactNode;
}) {
  return (
    <button
      ref={props.buttonRef}
      type="button"
      className={props.className ?? 'rc-icon-button'}
      aria-label={props.label}
      title={props.label}
      aria-disabled={props.disabled || undefined}
      tabIndex={props.tabIndex}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}
