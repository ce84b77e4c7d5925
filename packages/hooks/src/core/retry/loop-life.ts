import type { ResumableEnvironment } from '../base/env.js';
import { timerDelay } from './backoff.js';

/**
 * The life of a retrying loop — a run's reconnect loop (`reconnect.ts`) and the thread
 * stream's (`thread-stream.ts`) share it, so they start, wait, wake and stop alike: one
 * loop at a time, ended by `stop` without waiting for it (its generation moves on), and
 * its waits (the retry policy's delays, offline) cut short by `wakeNow`.
 */
export class LoopLife {
  private generation = 0;
  private running = false;
  private wake: (() => void) | null = null;

  constructor(private readonly env: Pick<ResumableEnvironment, 'setTimeout' | 'clearTimeout'>) {}

  get active(): boolean {
    return this.running;
  }

  /** The current generation: a caller's token for `live` and `sleep`. */
  get token(): number {
    return this.generation;
  }

  live(generation: number): boolean {
    return this.generation === generation;
  }

  /**
   * Runs `body` as the one loop (false, and nothing done, while one runs); `onError` gets
   * what it throws (a bug, not a network fault) with its generation.
   */
  start(
    body: (generation: number) => Promise<void>,
    onError: (error: unknown, generation: number) => void,
  ): boolean {
    if (this.running) return false;
    const generation = ++this.generation;
    this.running = true;
    void body(generation)
      .catch((error) => onError(error, generation))
      .finally(() => this.end(generation));
    return true;
  }

  /** The loop of `generation` is over (it returned): another may start. */
  end(generation: number): void {
    if (this.live(generation)) this.running = false;
  }

  /** Ends the current loop and its wait now. */
  stop(): void {
    this.generation++;
    this.running = false;
    this.wakeNow();
  }

  /** Ends a wait early (online, visible, retry). */
  wakeNow(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Waits `ms` (Infinity: until woken), or until woken, or until the generation ends. */
  sleep(generation: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: unknown;
      const done = () => {
        if (timer !== undefined) this.env.clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      if (!this.live(generation)) return resolve();
      this.wake = done;
      if (Number.isFinite(ms)) timer = this.env.setTimeout(done, timerDelay(ms));
    });
  }
}
