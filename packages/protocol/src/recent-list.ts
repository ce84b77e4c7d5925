// The fold's bounded lists (warnings, synthesized STARTs): the latest entries, counted apart.
import type { EventType } from './events.js';
import type { SynthesizedStart } from './state.js';

/**
 * `list` plus `item`. The base's list is copied once per batch (then appended to in place)
 * and cut back to the `max` most recent whenever it reaches twice that, so a batch with
 * many warnings neither copies per entry nor grows without bound; `finish` cuts it to `max`
 * (`keepRecent`).
 */
export function appendRecent<T>(list: readonly T[], base: readonly T[], item: T, max: number): T[] {
  const own = (list === base ? base.slice() : list) as T[];
  own.push(item);
  if (own.length >= 2 * max) own.splice(0, own.length - max);
  return own;
}

/** Cuts the batch's own copy of a list to its `max` most recent (the base's is never written). */
export function keepRecent(list: readonly unknown[], base: readonly unknown[], max: number): void {
  if (list !== base && list.length > max) (list as unknown[]).splice(0, list.length - max);
}

/**
 * The STARTs one batch synthesizes, as a ring of the `max` most recent kept in three
 * columns: a join that synthesizes one START per event (30k unknown ids) writes three slots
 * per event and allocates nothing, and only the entries that survive to the batch's end
 * become objects (`after`).
 */
export class RecentStarts {
  private readonly types: EventType[] = [];
  private readonly ids: string[] = [];
  private readonly offsets: number[] = [];
  /** Entries pushed in this batch. */
  private count = 0;
  /** Where the next entry goes (the oldest kept one, once the ring is full). */
  private slot = 0;

  constructor(private readonly max: number) {}

  push(type: EventType, id: string, atOffset: number): void {
    const slot = this.slot;
    this.types[slot] = type;
    this.ids[slot] = id;
    this.offsets[slot] = atOffset;
    this.count++;
    this.slot = slot + 1 === this.max ? 0 : slot + 1;
  }

  /** `base`'s entries then this batch's, the `max` most recent of them (a new array). */
  after(base: readonly SynthesizedStart[]): SynthesizedStart[] {
    const kept = Math.min(this.count, this.max);
    const out = base.slice(base.length - Math.min(base.length, this.max - kept));
    let slot = this.count > this.max ? this.slot : 0;
    for (let k = 0; k < kept; k++) {
      out.push({ type: this.types[slot]!, id: this.ids[slot]!, atOffset: this.offsets[slot]! });
      slot = slot + 1 === this.max ? 0 : slot + 1;
    }
    return out;
  }
}
