import type { ReactNode } from 'react';

// Inline icons (no icon font, no dependency). Decorative: every button carries its own name.
export function Icon({ children, filled = false }: { children: ReactNode; filled?: boolean }) {
  return (
    <svg
      aria-hidden="true"
      focusable="false"
      width={16}
      height={16}
      viewBox="0 0 24 24"
      fill={filled ? 'currentColor' : 'none'}
      stroke={filled ? 'none' : 'currentColor'}
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

export function CopyIcon() {
  return (
    <Icon>
      <rect x="9" y="9" width="12" height="12" rx="2" />
      <path d="M5 15V5a2 2 0 0 1 2-2h10" />
    </Icon>
  );
}

export function CheckIcon() {
  return (
    <Icon>
      <path d="M20 6 9 17l-5-5" />
    </Icon>
  );
}

export function SendIcon() {
  return (
    <Icon>
      <path d="M12 19V5M5 12l7-7 7 7" />
    </Icon>
  );
}

export function StopIcon() {
  return (
    <Icon filled>
      <rect x="6" y="6" width="12" height="12" rx="2" />
    </Icon>
  );
}

/** The typing indicator: three dots, named (e.g. "Assistant is thinking"). */
export function TypingDots({ label }: { label: string }) {
  return (
    <span className="rc-typing" role="img" aria-label={label}>
      <span />
      <span />
      <span />
    </span>
  );
}

/** Regenerate (an answer) and retry (an upload): one circling arrow. */
export function RetryIcon() {
  return (
    <Icon>
      <path d="M21 12a9 9 0 1 1-3-6.7L21 8" />
      <path d="M21 3v5h-5" />
    </Icon>
  );
}

export function ArrowDownIcon() {
  return (
    <Icon>
      <path d="M12 5v14M19 12l-7 7-7-7" />
    </Icon>
  );
}

/** Attach files (the composer). */
export function PaperclipIcon() {
  return (
    <Icon>
      <path d="m21.4 11.1-9.2 9.2a6 6 0 0 1-8.5-8.5l9.2-9.2a4 4 0 0 1 5.7 5.7l-9.2 9.2a2 2 0 0 1-2.8-2.8l8.5-8.5" />
    </Icon>
  );
}

/** Edit a prompt (its action row). */
export function EditIcon() {
  return (
    <Icon>
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.12 2.12 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </Icon>
  );
}
