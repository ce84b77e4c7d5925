/**
 * A chat's reads of its thread (history pages, the active run, a first upload's thread)
 * for as long as it is held: releasing or disposing the chat aborts those in flight, so
 * none stays open until its timeout. A read cut that way fails with `aborted`, which is no
 * error to show; the next holder reads again (`takeCut`).
 */
export class HeldReads {
  private controller = new AbortController();
  private inFlight = 0;
  private cut = false;

  /** The signal of reads started now (aborted when the chat is let go). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs `read` with the current signal, counted as in flight until it settles. */
  async run<T>(read: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await read(this.controller.signal);
    } finally {
      this.inFlight--;
    }
  }

  /** Aborts the reads in flight; those started later get a fresh signal. */
  abort(): void {
    if (this.inFlight > 0) this.cut = true;
    this.controller.abort();
    this.controller = new AbortController();
  }

  /** True once after `abort` cut a read short: what it was reading is read again. */
  takeCut(): boolean {
    const cut = this.cut;
    this.cut = false;
    return cut;
  }
}
