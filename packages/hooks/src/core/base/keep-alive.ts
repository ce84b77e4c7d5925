/**
 * Work starts with the first holder and stops a tick after the last one leaves (TanStack's
 * Subscribable): StrictMode's mount-unmount-mount, or a route change that remounts the
 * same key, gives the session straight back and the connection survives.
 */
export class KeepAlive {
  private refs = 0;
  private releaseTimer: unknown;
  /** Between `activate` and `deactivate`: a holder back before the deferred release finds it so. */
  private active = false;

  constructor(
    private readonly hooks: {
      activate(): void;
      deactivate(): void;
      setTimeout(callback: () => void, ms: number): unknown;
      clearTimeout(handle: unknown): void;
    },
  ) {}

  get held(): boolean {
    return this.refs > 0;
  }

  /** Starts work on the first holder; returns the matching `release` (idempotent). */
  retain(): () => void {
    this.cancelPendingRelease();
    this.refs++;
    if (this.refs === 1 && !this.active) {
      this.active = true;
      this.hooks.activate();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** Drops every holder at once (dispose). */
  reset(): void {
    this.cancelPendingRelease();
    this.refs = 0;
    this.active = false;
  }

  private release(): void {
    this.refs--;
    if (this.refs > 0) return;
    this.releaseTimer = this.hooks.setTimeout(() => {
      this.releaseTimer = undefined;
      if (this.refs !== 0) return;
      this.active = false;
      this.hooks.deactivate();
    }, 0);
  }

  private cancelPendingRelease(): void {
    if (this.releaseTimer === undefined) return;
    this.hooks.clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
  }
}
