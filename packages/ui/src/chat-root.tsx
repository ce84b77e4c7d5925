import type { HTMLAttributes } from 'react';
import { cx } from './cx.js';

/**
 * Props of {@link ChatRoot}: a `<div>`'s own (`className` is added to `rc-root rc-chat`,
 * `children` are your parts) and a forced theme.
 */
export interface ChatRootProps extends HTMLAttributes<HTMLDivElement> {
  /**
   * Force a theme; by default it follows `prefers-color-scheme`. Sets `data-theme`.
   * @default undefined
   */
  theme?: 'light' | 'dark';
}

/**
 * The element the stylesheet's variables live on (`.rc-root`), laid out as a full-height
 * column. Wrap your own composition of the parts in it.
 */
export function ChatRoot({ theme, className, children, ...rest }: ChatRootProps) {
  return (
    <div {...rest} className={cx('rc-root', 'rc-chat', className)} data-theme={theme}>
      {children}
    </div>
  );
}
