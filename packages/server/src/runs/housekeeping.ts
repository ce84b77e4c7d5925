import type { EventStore } from '../stores/types.js';

export interface HousekeepingOptions {
  store: EventStore;
  heartbeatMs: number;
  leaseMs: number;
  /** How often a single-instance store is swept for orphans after start-up. */
  orphanSweepMs: number;
  pruneEveryMs: number;
  heartbeat: () => void;
  pruneExpiredEvents: () => Promise<void>;
  endOrphans: () => Promise<void>;
  renewLeases: () => Promise<void>;
}

/**
 * The timers of an instance: heartbeats, retention sweeps, orphan sweeps and lease
 * renewals. Returns the function that stops them all.
 */
export function startHousekeeping(options: HousekeepingOptions): () => void {
  const timers: ReturnType<typeof setInterval>[] = [];
  const every = (ms: number, task: () => void) => {
    const timer = setInterval(task, ms);
    timer.unref?.();
    timers.push(timer);
  };
  every(Math.max(10, Math.floor(options.heartbeatMs / 3)), options.heartbeat);
  every(options.pruneEveryMs, () => void options.pruneExpiredEvents());
  // A third of the lease for a shared store: a dead instance's runs end within ~1⅓ leases
  // of its death. A single-instance store has no leases; its orphans (a run whose end the
  // store failed to take) are swept at a slower pace.
  every(options.store.shared ? options.leaseMs / 3 : options.orphanSweepMs, () => {
    void options.endOrphans();
  });
  if (options.store.shared && options.store.renewLease) {
    every(options.leaseMs / 3, () => void options.renewLeases());
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
