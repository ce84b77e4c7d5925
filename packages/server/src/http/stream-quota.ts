import { ResumableError } from '@resumable/protocol';

/**
 * Open event streams per client address on this instance. The per-run and per-thread
 * limits (2000 each) are for many viewers; without this one, a single client could open
 * that many on every run it can read and run the process out of sockets.
 */
export class StreamQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts a stream of `address` (none when unknown), or throws `429`; returns its release. */
  take(address: string | null): () => void {
    if (address === null) return () => {};
    const count = this.open.get(address) ?? 0;
    if (count >= this.max) {
      throw new ResumableError(
        'too_many_requests',
        `this client has ${count} open event streams, its limit`,
        { retryAfter: 1 },
      );
    }
    this.open.set(address, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(address) ?? 1) - 1;
      if (left > 0) this.open.set(address, left);
      else this.open.delete(address);
    };
  }
}
