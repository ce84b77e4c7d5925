/** Counts per key (streams per address, deletions per thread); a key back at 0 is dropped. */
export class KeyCounts {
  private readonly counts = new Map<string, number>();

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts one more for `key`; the returned release counts it off, once. */
  add(key: string): () => void {
    this.counts.set(key, this.get(key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.get(key) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }
}
