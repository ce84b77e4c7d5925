import { ResumableError } from '@resumable/protocol';

export interface AdmissionOptions {
  maxConcurrentRuns: number;
  /** Runs this instance produces right now. */
  activeCount: () => number;
}

/**
 * Who may start a run now. Slots are taken before the caller's first await, so
 * concurrent POSTs cannot overshoot a limit.
 */
export class Admission {
  /** Runs between the limit check and their registration. */
  private starting = 0;

  constructor(private readonly options: AdmissionOptions) {}

  /** The error to answer when this instance is at its run limit, else null. */
  full(): ResumableError | null {
    const busy = this.options.activeCount() + this.starting;
    if (busy < this.options.maxConcurrentRuns) return null;
    return new ResumableError(
      'too_many_requests',
      `this server is producing ${busy} runs, its limit`,
      {
        retryAfter: 1,
      },
    );
  }

  /** Holds a slot until `release` (the run is registered as active, or failed to start). */
  take(): void {
    this.starting++;
  }

  release(): void {
    this.starting--;
  }
}
