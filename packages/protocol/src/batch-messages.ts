import type { RunMessage } from './state.js';

/** Messages per chunk: a chunk's backing store stays a regular young object (< 128 KB). */
const CHUNK = 4096;

/**
 * One batch's view of `state.messages`: the base's array (copied the first time the batch
 * replaces one of its messages), then the messages the batch adds, kept in chunks of 4,096
 * and joined once at the end (`result`). Why not push onto one copy: V8 grows an array past
 * 16k elements into a new large object on freshly mapped pages at every growth step (~2 ms
 * of page faults and copying for a 30k-message join, `pnpm bench linearity`); the chunks
 * stay small and the result is allocated once at its final size. A batch that adds one
 * message to a long transcript no longer copies the array twice either.
 */
export class BatchMessages {
  /** The base's array until the batch replaces one of its messages, then a copy of it. */
  private main: readonly RunMessage[];
  /** The added messages' chunks (null until the batch adds one: most batches add none). */
  private chunks: RunMessage[][] | null = null;
  /** Positions below this are the base's (and written copy-on-write); above, this batch's. */
  readonly baseLength: number;
  length: number;

  constructor(private readonly base: readonly RunMessage[]) {
    this.main = base;
    this.baseLength = this.length = base.length;
  }

  at(i: number): RunMessage | undefined {
    if (i < this.baseLength) return this.main[i];
    const k = i - this.baseLength;
    return this.chunks?.[(k / CHUNK) | 0]?.[k % CHUNK];
  }

  set(i: number, message: RunMessage): void {
    if (i >= this.baseLength) {
      const k = i - this.baseLength;
      this.chunks![(k / CHUNK) | 0]![k % CHUNK] = message;
      return;
    }
    if (this.main === this.base) this.main = this.base.slice();
    (this.main as RunMessage[])[i] = message;
  }

  /** Appends `message`; returns its position. */
  push(message: RunMessage): number {
    const k = this.length - this.baseLength;
    this.chunks ??= [];
    const chunks = this.chunks;
    if (k % CHUNK === 0) chunks.push([]);
    chunks[chunks.length - 1]!.push(message);
    return this.length++;
  }

  /** The batch's messages as one array: the base's own when the batch changed none. */
  result(): readonly RunMessage[] {
    return this.chunks === null ? this.main : this.main.concat(...this.chunks);
  }
}
