import { useEffect, useRef, useState } from 'react';
import { cx } from './cx.js';
import { CheckIcon, CopyIcon } from './icons.js';

/** Props of {@link CopyButton}: the text to copy and the button's two names. */
export interface CopyButtonProps {
  /** The text put on the clipboard. */
  text: string;
  /** Accessible name (and tooltip) before copying. */
  label: string;
  /** Accessible name (and tooltip) for a short while after copying. */
  copiedLabel: string;
  /** Class names added to the `<button>` (which always has `rc-icon-button`). */
  className?: string;
}

const COPIED_FOR_MS = 2000;

/** Copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({ text, label, copiedLabel, className }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const onClick = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // No clipboard permission (insecure context, denied): nothing to report but no tick.
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_FOR_MS);
  };

  const name = copied ? copiedLabel : label;
  return (
    <button
      type="button"
      className={cx('rc-icon-button', className)}
      aria-label={name}
      title={name}
      data-copied={copied || undefined}
      onClick={onClick}
    >
      {copied ? <CheckIcon /> : <CopyIcon />}
    </button>
  );
}
