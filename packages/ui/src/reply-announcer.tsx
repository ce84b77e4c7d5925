import type { RunStatus } from '@resumable/protocol';
import { cx } from './cx.js';
import { type ChatLabels, useLabels } from './labels.js';
import { useChunk } from './lazy-chunk.js';
import { partsChunk } from './lazy-parts.js';

/** Props of {@link ReplyAnnouncer}: whether a reply streams, how the run ended, and its words. */
export interface ReplyAnnouncerProps {
  /** A reply is streaming. */
  isStreaming: boolean;
  /** The run's status when the reply ends: a cancelled run is announced as stopped. */
  status?: RunStatus;
  /**
   * Overrides of what it announces: `replying`, `replyFinished` and `replyStopped`. What is
   * left out keeps `DEFAULT_LABELS`.
   */
  labels?: Partial<ChatLabels>;
  /** Class names added to the live region (which always has `rc-sr-only`, visually hidden). */
  className?: string;
}

/**
 * A polite, visually hidden live region that says "Assistant is replying" when a reply starts
 * and "Reply finished" when it ends: once each, never per token. The region is there from the
 * first frame (a live region must exist before its text changes); what it says comes with the
 * transcript's parts chunk (`partsChunk`, fetched on mount).
 */
export function ReplyAnnouncer({
  isStreaming,
  status = 'idle',
  labels: labelsProp,
  className,
}: ReplyAnnouncerProps) {
  const labels = useLabels(labelsProp);
  const parts = useChunk(partsChunk);
  return (
    <div
      className={cx('rc-sr-only', className)}
      aria-live="polite"
      aria-atomic="true"
      data-part="announcer"
    >
      {parts ? (
        <parts.ReplyAnnouncement isStreaming={isStreaming} status={status} labels={labels} />
      ) : null}
    </div>
  );
}
