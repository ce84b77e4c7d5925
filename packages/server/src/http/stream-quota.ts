import { ResumableError } from '@resumable/protocol';
import { KeyCounts } from '../key-counts.js';

/**
 * Open event streams per client address, by default. Enough for every run one address may
 * have running (`maxRunningRunsPerAddress`, 50) to be followed along with its thread's
 * stream; a 2-core server holds thousands of streams, so one address takes a small share.
 */
export const DEFAULT_MAX_STREAMS_PER_ADDRESS = 100;

/**
 * The one key of every request whose address is unknown (`clientAddress` gave null): they
 * share one count rather than none. No address is empty, so it names no real client.
 */
const UNKNOWN = '';

/**
 * Open event streams per client address on this instance. The per-run and per-thread
 * limits (2000 each) are for many viewers; without this one, a single client could open
 * that many on every run it can read and run the process out of sockets.
 */
export class StreamQuota {
  private readonly open = new KeyCounts();
  private warned = false;

  constructor(
    private readonly max: number,
    private readonly log: (message: string) => void,
  ) {}

  /** Counts a stream of `address` (null: the shared unknown one), or throws `429`; returns its release. */
  take(address: string | null): () => void {
    const key = address ?? UNKNOWN;
    if (address === null && !this.warned) {
      this.warned = true;
      this.log(
        `a stream's client address is unknown (set clientAddress on this host): such clients share one limit of ${this.max} open event streams`,
      );
    }
    const count = this.open.get(key);
    if (count >= this.max) {
      throw new ResumableError(
        'too_many_requests',
        address === null
          ? `clients of unknown address have ${count} open event streams, their shared limit`
          : `this client has ${count} open event streams, its limit`,
        { retryAfter: 1 },
      );
    }
    return this.open.add(key);
  }
}
