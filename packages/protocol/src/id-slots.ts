/**
 * One shard of an `IdIndex`: an open-addressing table (linear probing, load ≤ ½) keyed by a
 * cheap sampled hash of the id, its entries interleaved in one array as `key, hash, value`.
 * Why not a Map: a join's ids are fresh strings, and a Map hashes every character of each
 * (a 45-character server id) and keeps an insertion-ordered table besides; this shard reads
 * at most 16 characters and one array (`pnpm bench linearity`).
 *
 * Not a defence on its own: ids built to share the sampled characters would share a hash
 * and make every probe walk one long run. A probe longer than `MAX_PROBE` turns the shard
 * into a plain Map (V8's seeded hash over every character), so such ids cost what they did
 * before this table, never a quadratic walk.
 */
const MAX_PROBE = 48;
/**
 * A free slot's hash (a real one is 0 or more), so any value (even null) can be an id, and a
 * probe compares small integers until a hash matches, never an id of unknown type.
 */
const FREE = -1;
/** `find`'s answer when `MAX_PROBE` slots from the id's home hold neither it nor a free slot. */
const TOO_FAR = Number.MIN_SAFE_INTEGER;

/** 30 bits from an id's length, its last 12 characters and 4 spread over the rest. */
export function idHash(id: string): number {
  if (typeof id !== 'string') return 0;
  const n = id.length;
  let h = Math.imul(n ^ 0x2f1b, 0x9e3779b1);
  for (let i = n > 12 ? n - 12 : 0; i < n; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  if (n > 12) {
    // Random ids change everywhere; counters at the end; these catch ids that differ early.
    h = Math.imul(h ^ id.charCodeAt(0), 0x01000193);
    h = Math.imul(h ^ id.charCodeAt(n >> 2), 0x01000193);
    h = Math.imul(h ^ id.charCodeAt(n >> 1), 0x01000193);
    h = Math.imul(h ^ id.charCodeAt((3 * n) >> 2), 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) & 0x3fffffff;
}

export class IdSlots<V> {
  private constructor(
    /** `key, hash, value` per slot; a slot whose hash is `FREE` is free (all three are). */
    private slots: unknown[],
    private mask: number,
    public size: number,
    /** Set once the ids defeated the hash: every operation goes to this Map instead. */
    private map: Map<string, V> | null,
  ) {}

  static empty<V>(): IdSlots<V> {
    return new IdSlots<V>(new Array(3 * 8).fill(FREE), 7, 0, null);
  }

  /** A copy this shard's owner may write without touching the original. */
  copy(): IdSlots<V> {
    return new IdSlots(this.slots.slice(), this.mask, this.size, this.map && new Map(this.map));
  }

  /**
   * The slot holding `id` (≥ 0), else `~slot` of the free slot where it would go, else
   * `TOO_FAR`. Every entry sits within `MAX_PROBE` of its home slot (`set` and `grow` place
   * none farther; `delete` only moves entries closer), so a walk that long ends a search.
   */
  private find(id: string, h: number): number {
    const { slots, mask } = this;
    let j = h & mask;
    for (let probe = 0; probe < MAX_PROBE; probe++) {
      const hash = slots[3 * j + 1];
      if (hash === FREE) return ~j;
      if (hash === h && slots[3 * j] === id) return j;
      j = (j + 1) & mask;
    }
    return TOO_FAR;
  }

  get(id: string, h: number): V | undefined {
    if (this.map !== null) return this.map.get(id);
    const j = this.find(id, h);
    return j >= 0 ? (this.slots[3 * j + 2] as V) : undefined;
  }

  has(id: string, h: number): boolean {
    if (this.map !== null) return this.map.has(id);
    return this.find(id, h) >= 0;
  }

  /** Sets `id`; returns whether it was new. */
  set(id: string, h: number, value: V): boolean {
    if (this.map !== null) return this.mapSet(id, value);
    let j = this.find(id, h);
    if (j >= 0) {
      this.slots[3 * j + 2] = value;
      return false;
    }
    // A run too long in a sparse table is ids aimed at its low bits: growing would double it
    // for every few dozen of them, so they go to a Map (a table stays ≤ 16 slots per entry).
    if (j === TOO_FAR && 8 * this.size < this.mask + 1) this.toMap();
    else if (j === TOO_FAR || 2 * (this.size + 1) > this.mask + 1) {
      this.grow();
      if (this.map === null) {
        j = this.find(id, h);
        if (j === TOO_FAR) this.toMap();
      }
    }
    if (this.map !== null) return this.mapSet(id, value);
    const at = 3 * ~j;
    this.slots[at] = id;
    this.slots[at + 1] = h;
    this.slots[at + 2] = value;
    this.size++;
    return true;
  }

  /** Removes `id`, moving back the entries after it (no tombstones); returns whether it was there. */
  delete(id: string, h: number): boolean {
    if (this.map !== null) {
      const had = this.map.delete(id);
      if (had) this.size--;
      return had;
    }
    const { slots, mask } = this;
    let hole = this.find(id, h);
    if (hole < 0) return false;
    this.size--;
    for (let j = (hole + 1) & mask; slots[3 * j + 1] !== FREE; j = (j + 1) & mask) {
      // The entry at j may fill the hole only if its home slot is not between hole and j.
      const home = (slots[3 * j + 1] as number) & mask;
      if (((j - home) & mask) < ((j - hole) & mask)) continue;
      slots[3 * hole] = slots[3 * j];
      slots[3 * hole + 1] = slots[3 * j + 1];
      slots[3 * hole + 2] = slots[3 * j + 2];
      hole = j;
    }
    slots[3 * hole] = FREE;
    slots[3 * hole + 1] = FREE;
    slots[3 * hole + 2] = FREE;
    return true;
  }

  *entries(): Generator<[string, V]> {
    if (this.map !== null) {
      yield* this.map.entries();
      return;
    }
    // A snapshot of the slots: a delete during the walk moves later entries back into
    // slots already visited. Entries deleted before their turn are skipped, as a Map does
    // (entries added during the walk are not visited, unlike a Map).
    const slots = this.slots.slice();
    for (let at = 0; at < slots.length; at += 3) {
      const h = slots[at + 1] as number;
      if (h === FREE) continue;
      const key = slots[at] as string;
      // A set during the walk may have turned the shard into a Map.
      const map = this.map as Map<string, V> | null;
      if (map !== null ? map.has(key) : this.find(key, h) >= 0) {
        yield [key, this.get(key, h) as V];
      }
    }
  }

  private mapSet(id: string, value: V): boolean {
    const map = this.map!;
    const before = map.size;
    map.set(id, value);
    this.size = map.size;
    return map.size > before;
  }

  /** Twice the slots; a run still too long after that means the ids defeat the hash. */
  private grow(): void {
    const old = this.slots;
    this.mask = 2 * this.mask + 1;
    this.slots = new Array(3 * (this.mask + 1)).fill(FREE);
    for (let at = 0; at < old.length; at += 3) {
      const h = old[at + 1] as number;
      if (h === FREE) continue;
      let j = h & this.mask;
      let probe = 0;
      while (this.slots[3 * j + 1] !== FREE) {
        j = (j + 1) & this.mask;
        if (++probe === MAX_PROBE) {
          this.slots = old;
          this.mask = (this.mask - 1) / 2;
          this.toMap();
          return;
        }
      }
      this.slots[3 * j] = old[at];
      this.slots[3 * j + 1] = h;
      this.slots[3 * j + 2] = old[at + 2];
    }
  }

  private toMap(): void {
    this.map = new Map(this.entries());
    this.slots = [];
    this.mask = 0;
  }
}
