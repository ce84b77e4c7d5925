import type { ReactNode } from 'react';
import { cx } from '../cx.js';
import { useCardFocus } from './use-card-focus.js';

/**
 * The frame of an open interrupt card: a region named by its title, focused when it
 * appears (the person's next key press should reach it), with the DOM contract's
 * `data-interrupt-id` / `data-interrupt-status`.
 */
export function CardSection(props: {
  id: string;
  kind: 'approval' | 'question' | 'tool';
  titleId: string;
  title: ReactNode;
  className?: string | undefined;
  execution?: 'interrupted';
  children: ReactNode;
}) {
  const ref = useCardFocus<HTMLElement>();
  return (
    <section
      ref={ref}
      tabIndex={-1}
      className={cx('rc-interrupt', `rc-interrupt--${props.kind}`, props.className)}
      aria-labelledby={props.titleId}
      data-interrupt-id={props.id}
      data-interrupt-status="open"
      data-execution={props.execution}
    >
      <p id={props.titleId} className="rc-interrupt__title">
        {props.title}
      </p>
      {props.children}
    </section>
  );
}
