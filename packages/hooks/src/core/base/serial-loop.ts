/**
 * One loop at a time: `run(step)` calls `step` while it answers true (at most `limit`
 * times); a caller arriving while a loop runs shares it and is answered when it ends.
 */
export class SerialLoop {
  private running: Promise<void> | null = null;

  constructor(private readonly limit = 100) {}

  run(step: () => boolean | Promise<boolean>): Promise<void> {
    if (this.running) return this.running;
    const loop = async () => {
      for (let i = 0; i < this.limit; i++) if (!(await step())) return;
    };
    // `.finally` runs after this assignment even when the loop ends synchronously.
    const running: Promise<void> = loop().finally(() => {
      if (this.running === running) this.running = null;
    });
    this.running = running;
    return running;
  }
}
