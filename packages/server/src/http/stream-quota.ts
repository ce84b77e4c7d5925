import { ResumableError } from '@resumable/protocol';
import { KeyCounts } from '../key-counts.js';

/**
 * Open event streams per client address on this instance. The per-run and per-thread
 * limits (2000 each) are for many viewers; without this one, a single client could open
 * that many on every run it can read and run the process out of sockets.
 */
export class StreamQuota {
  private readonly open = new KeyCounts();

  constructor(private readonly max: number) {}

  /** Counts a stream of `address` (none when unknown), or throws `429`; returns its release. */
  take(address: string | null): () => void {
    if (address === null) return () => {};
    const count = this.open.get(address);
    if (count >= this.max) {
      throw new ResumableError(
        'too_many_requests',
        `this client has ${count} open event streams, its limit`,
        { retryAfter: 1 },
      );
    }
    return this.open.add(address);
  }
}
