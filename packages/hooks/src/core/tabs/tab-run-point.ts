import type { Envelope } from '@resumable/protocol';
import type { LoopOptions } from '../run/reconnect-loop.js';
import type { RunSession } from '../run/run-session.js';
import { SharedPoint } from './shared-point.js';

/**
 * A follower's run offset against other tabs' run batches (`shared-point.ts`): a batch is
 * folded where it continues this tab's offset; a gap, a disagreement, or a leader that says
 * it is ahead is settled by the server's snapshot (`GET /runs/{id}`, this tab's own read),
 * never by another tab's snapshot — a made-up one would move the offset past what the real
 * leader posts, and its text would replace the server's.
 */
export class TabRunPoint {
  private runId: string | null = null;
  private readonly point: SharedPoint;

  constructor(
    private readonly run: RunSession,
    options: Pick<LoopOptions, 'backoff' | 'maxAttemptsWithoutProgress'>,
  ) {
    this.point = new SharedPoint({
      env: run.env,
      backoff: options.backoff,
      maxAttemptsWithoutProgress: options.maxAttemptsWithoutProgress,
      point: () => {
        const p = this.run.shared.point;
        return p?.runId === this.runId ? p.offset : null;
      },
      fold: (envelopes) => this.run.shared.apply(this.runId as string, envelopes) !== 'gap',
      check: (disputed) => this.check(disputed),
    });
  }

  /** Another tab's batch of run `runId`; one for a run this tab does not follow is dropped. */
  offer(runId: string, envelopes: Envelope[]): void {
    if (!this.track(runId)) return;
    this.point.offer(envelopes);
  }

  /** The leader says it is past this tab's offset on `runId` (without a batch): checked. */
  doubt(runId: string, offset: number): void {
    const p = this.run.shared.point;
    if (!this.track(runId) || p === null || offset <= p.offset) return;
    this.point.doubt();
  }

  /** This tab's own stream folded up to its offset (it leads): confirmed. */
  confirmOwn(): void {
    const p = this.run.shared.point;
    if (p && this.track(p.runId)) this.point.confirm(p.offset);
  }

  /** This tab reads the network itself now: nothing pending. */
  cancel(): void {
    this.point.cancel();
  }

  /** Follows `runId` if it is the session's run (a new one starts clean); false otherwise. */
  private track(runId: string): boolean {
    const p = this.run.shared.point;
    if (p?.runId !== runId) return false;
    if (this.runId !== runId) {
      this.runId = runId;
      this.point.reset();
    }
    // What the run was built on came from the server (a snapshot, this tab's own stream).
    this.point.confirm(p.base);
    return true;
  }

  private async check(disputed: boolean): Promise<number | null> {
    const p = this.run.shared.point;
    if (p === null || p.runId !== this.runId || this.run.shared.ownsStream) return null;
    const snapshot = await this.run.api.getRun(p.runId, p.token);
    if (this.run.shared.point?.runId !== p.runId || this.run.shared.ownsStream) return null;
    await this.run.shared.takeSnapshot(snapshot, disputed);
    return snapshot.lastOffset;
  }
}
