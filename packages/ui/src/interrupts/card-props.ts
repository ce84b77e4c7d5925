import type { ChatInterrupt } from '@resumable/hooks/core';
import type { ChatLabels } from '../labels.js';

/**
 * What every interrupt card takes: `<InterruptCard>` (the loader) and the cards it loads
 * on demand. Its own file, so the cards need not import back from their loader.
 */
export interface InterruptCardProps {
  /** The interrupt to show: one of `useResumableChat().interrupts`, open or answered. */
  interrupt: ChatInterrupt;
  /**
   * Answers interrupt `id` with `payload`: an approval's `{ approved, reason? }`, a
   * question's `{ answer }`. Pass `useResumableChat().resolve`; the card's buttons stay
   * disabled until the promise settles.
   */
  onResolve(id: string, payload: unknown): Promise<void> | void;
  /** Cancels interrupt `id` (the agent goes on without it). Pass `useResumableChat().cancel`. */
  onCancel(id: string): Promise<void> | void;
  /** `useResumableChat().rerunTool`: a browser tool cut by a reload, run again. */
  onRerun?(id: string): Promise<void> | void;
  /**
   * Overrides of the card's words: the `InterruptLabels` keys (titles, buttons, the
   * answered states) and the tool states (`toolArguments`, …). What is left out keeps
   * `DEFAULT_LABELS`; the cards of `@resumable/ui/interrupts` take them whole.
   */
  labels?: Partial<ChatLabels>;
  /**
   * Class names added to the card's outer element (`rc-interrupt`, or `rc-interrupt-answer`
   * once answered).
   */
  className?: string;
}
