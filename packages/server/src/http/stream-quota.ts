import { ResumableError } from '@resumable/protocol';
import { overAddressLimit } from '../client-address.js';
import { KeyCounts } from '../key-counts.js';

/**
 * Open event streams per client address on this instance. The per-run and per-thread
 * limits (2000 each) are for many viewers; without this one, a single client could open
 * that many on every run it can read and run the process out of sockets.
 */
export class StreamQuota {
  private readonly open = new KeyCounts();

  constructor(private readonly max: number) {}

  /** Counts a stream of the client `key` (`addressKeys`), or throws `429`; returns its release. */
  take(key: string): () => void {
    const count = this.open.get(key);
    if (count >= this.max) {
      const streams = `${count} open event streams`;
      throw new ResumableError(
        'too_many_requests',
        overAddressLimit(key, `has ${streams}`, `have ${streams}`),
        { retryAfter: 1 },
      );
    }
    return this.open.add(key);
  }
}
