import type { ChatInterrupt } from '@resumable/hooks/core';
import type { ChatLabels } from '../labels.js';

/**
 * What every interrupt card takes: `<InterruptCard>` (the loader) and the cards it loads
 * on demand. Its own file, so the cards need not import back from their loader.
 */
export interface InterruptCardProps {
  interrupt: ChatInterrupt;
  /** `useResumableChat().resolve`. */
  onResolve(id: string, payload: unknown): Promise<void> | void;
  /** `useResumableChat().cancel`. */
  onCancel(id: string): Promise<void> | void;
  /** `useResumableChat().rerunTool`: a browser tool cut by a reload, run again. */
  onRerun?(id: string): Promise<void> | void;
  labels?: Partial<ChatLabels>;
  className?: string;
}
