import type { ReactNode, Ref } from 'react';
import { Icon } from './icons.js';

// The message actions' icons, beside the kit's own (decorative: every button has a name),
// and the one icon button they sit in.

/**
 * An icon button named by `label` (also its tooltip). `disabled` keeps it focusable
 * (`aria-disabled`): a keyboard user's focus never falls to the page when an end is reached.
 */
export function ActionButton(props: {
  label: string;
  onClick: () => void;
  disabled?: boolean;
  buttonRef?: Ref<HTMLButtonElement> | undefined;
  children: ReactNode;
}) {
  return (
    <button
      ref={props.buttonRef}
      type="button"
      className="rc-icon-button"
      aria-label={props.label}
      title={props.label}
      aria-disabled={props.disabled || undefined}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

export function RegenerateIcon() {
  return (
    <Icon>
      <path d="M21 12a9 9 0 1 1-2.64-6.36" />
      <path d="M21 3v6h-6" />
    </Icon>
  );
}

export function EditIcon() {
  return (
    <Icon>
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Icon>
  );
}

export function ChevronLeftIcon() {
  return (
    <Icon>
      <path d="m15 18-6-6 6-6" />
    </Icon>
  );
}

export function ChevronRightIcon() {
  return (
    <Icon>
      <path d="m9 18 6-6-6-6" />
    </Icon>
  );
}
