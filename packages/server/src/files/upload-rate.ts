import { overAddressLimit } from '../client-address.js';
import { LocalCounters } from '../local-counters.js';
import { tooMany } from '../rate-window.js';
import type { RateTake, SharedCounters } from '../stores/types.js';

/** Per-client limits on uploads (`POST /threads/{id}/files`). */
export interface UploadRateLimits {
  /** Uploads per minute from one client address. */
  maxUploadsPerMinutePerAddress: number;
  /** Uploads per minute to one thread (one thread token). */
  maxUploadsPerMinutePerThread: number;
  /** Bytes of uploads per minute from one client address. */
  maxUploadBytesPerMinutePerAddress: number;
}

/**
 * Who may upload now: every upload request counts (a refused type or size too, as reading
 * it cost as much). The windows are the store's `counters` when it has them (Redis: every
 * instance counts one budget), else this instance's own (`LocalCounters`, which checks
 * and records with no await in between, so concurrent uploads cannot overshoot).
 */
export class UploadRate {
  constructor(
    private readonly limits: UploadRateLimits,
    private readonly counters: SharedCounters = new LocalCounters(),
  ) {}

  /** Counts an upload to `threadId` from the client `address` (`addressKeys`), or throws its `429`. */
  async admit(threadId: string, address: string): Promise<void> {
    const { limits } = this;
    const refused = await this.counters.take([
      window('thread', 'uploads', threadId, limits.maxUploadsPerMinutePerThread, 1),
      window('address', 'uploads', address, limits.maxUploadsPerMinutePerAddress, 1),
    ]);
    if (!refused) return;
    if (refused.index === 0) {
      throw tooMany(
        `thread ${threadId} took ${limits.maxUploadsPerMinutePerThread} uploads in the last minute, its limit`,
        refused.retryAfter,
      );
    }
    const uploads = `sent ${limits.maxUploadsPerMinutePerAddress} uploads in the last minute`;
    throw tooMany(overAddressLimit(address, uploads), refused.retryAfter);
  }

  /** Counts the bytes of an upload once read, or throws its `429`. */
  async admitBytes(address: string, bytes: number): Promise<void> {
    const { limits } = this;
    const refused = await this.counters.take([
      window('address', 'upload-bytes', address, limits.maxUploadBytesPerMinutePerAddress, bytes),
    ]);
    if (!refused) return;
    const sent = `sent ${limits.maxUploadBytesPerMinutePerAddress} bytes of uploads in the last minute`;
    throw tooMany(overAddressLimit(address, sent), refused.retryAfter);
  }
}

function window(
  scope: RateTake['scope'],
  name: string,
  key: string,
  limit: number,
  weight: number,
): RateTake {
  return { scope, name, key, limit, windowMs: 60_000, weight };
}
