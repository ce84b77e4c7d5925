import { overAddressLimit } from '../client-address.js';
import { RateWindow, tooMany } from '../rate-window.js';

/** Per-client limits on uploads (`POST /threads/{id}/files`), per server instance. */
export interface UploadRateLimits {
  /** Uploads per minute from one client address. */
  maxUploadsPerMinutePerAddress: number;
  /** Uploads per minute to one thread (one thread token). */
  maxUploadsPerMinutePerThread: number;
  /** Bytes of uploads per minute from one client address. */
  maxUploadBytesPerMinutePerAddress: number;
}

export const DEFAULT_UPLOAD_RATE: UploadRateLimits = {
  maxUploadsPerMinutePerAddress: 60,
  maxUploadsPerMinutePerThread: 30,
  maxUploadBytesPerMinutePerAddress: 100 * 1024 * 1024,
};

/**
 * Who may upload now: every upload request counts (a refused type or size too, as reading
 * it cost as much), checked and recorded with no await in between, so concurrent uploads
 * cannot overshoot. The windows are `RateWindow`s, bounded in keys like the run limits.
 */
export class UploadRate {
  private readonly byAddress: RateWindow;
  private readonly byThread: RateWindow;
  private readonly bytesByAddress: RateWindow;

  constructor(private readonly limits: UploadRateLimits) {
    this.byAddress = new RateWindow(limits.maxUploadsPerMinutePerAddress, 60_000);
    this.byThread = new RateWindow(limits.maxUploadsPerMinutePerThread, 60_000);
    this.bytesByAddress = new RateWindow(limits.maxUploadBytesPerMinutePerAddress, 60_000);
  }

  /** Counts an upload to `threadId` from the client `address` (`addressKeys`), or throws its `429`. */
  admit(threadId: string, address: string, now = Date.now()): void {
    const threadWait = this.byThread.retryAfter(threadId, now);
    if (threadWait > 0) {
      throw tooMany(
        `thread ${threadId} took ${this.limits.maxUploadsPerMinutePerThread} uploads in the last minute, its limit`,
        threadWait,
      );
    }
    const wait = this.byAddress.retryAfter(address, now);
    if (wait > 0) {
      const uploads = `sent ${this.limits.maxUploadsPerMinutePerAddress} uploads in the last minute`;
      throw tooMany(overAddressLimit(address, uploads), wait);
    }
    this.byThread.record(threadId, now);
    this.byAddress.record(address, now);
  }

  /** Counts the bytes of an upload once read, or throws its `429`. */
  admitBytes(address: string, bytes: number, now = Date.now()): void {
    const wait = this.bytesByAddress.retryAfter(address, now, bytes);
    if (wait > 0) {
      const sent = `sent ${this.limits.maxUploadBytesPerMinutePerAddress} bytes of uploads in the last minute`;
      throw tooMany(overAddressLimit(address, sent), wait);
    }
    this.bytesByAddress.record(address, now, bytes);
  }
}
