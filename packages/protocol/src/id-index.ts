import { IdSlots, idHash } from './id-slots.js';

/**
 * The shard of a 30-bit hash: its top 5 bits, so 32 shards (one bit each in an int32 mask)
 * and ~60k ids stay under 2k per shard; the low bits pick the slot inside it.
 */
const shardOf = (h: number) => h >>> 25;

/**
 * The id last hashed and its hash, for every index (a module's, not an index's: states are
 * frozen in tests, and the fold looks an id up in the base's index, then adds it to its own).
 */
let lastId: unknown = null;
let lastHash = 0;

/**
 * The last `get`'s id and answer, and the index that gave them (null after that index is
 * written). A client that renders every event folds each one in a batch of its own, and a
 * stream's events name one message after another: each batch looks up the id the last one
 * did in the same index (its `messageIndex` is the last state's until a message is added).
 * A module's, as `lastId` is (a frozen index cannot hold it); it keeps one index alive at
 * most, until another is read.
 */
let readIndex: IdIndex<unknown> | null = null;
let readId = '';
let readValue: unknown;

/**
 * The fold's id tables (`messageIndex`, `toolCallOwner`): a `ReadonlyMap` over 32 shards
 * picked by a cheap sampled hash of the id (`id-slots.ts`), so ids are data, never object
 * keys. Why shards: one table grows by rehashing into one twice the size, and past a few
 * thousand entries that is a large object on freshly mapped pages — a join over 30k unknown
 * ids spent most of its time in page faults and rehashes of one index (`pnpm bench
 * linearity`). Shards of a few thousand stay in the young generation, and a batch copies
 * only the shards it writes (`writable`), never the whole index. It iterates shard by
 * shard, not in insertion order (`messages` has the order).
 */
export class IdIndex<V> implements ReadonlyMap<string, V> {
  private constructor(
    private readonly shards: (IdSlots<V> | undefined)[],
    /** How many ids the index holds. */
    public size: number,
    /** Bit k set: shard k was made by this copy, which may write it. */
    private own: number,
  ) {}

  /** A copy of `map` (empty without one) the fold may write; shards shared until written. */
  static from<V>(map?: ReadonlyMap<string, V>): IdIndex<V> {
    if (map instanceof IdIndex) {
      // The shards are both indexes' now: the original copies them too before writing
      // (a frozen one, as the fold's base states are in tests, is never written).
      if (!Object.isFrozen(map)) map.own = 0;
      return new IdIndex(map.shards.slice(), map.size, 0);
    }
    const index = new IdIndex<V>([], 0, 0);
    if (map) for (const [id, value] of map) index.set(id, value);
    return index;
  }

  private hash(id: string): number {
    if (id === lastId) return lastHash;
    lastId = id;
    lastHash = idHash(id);
    return lastHash;
  }

  /** Maps `id` to `value` (replacing any value it had), copying the shard it writes first. */
  set(id: string, value: V): this {
    if (this === readIndex) readIndex = null;
    const h = this.hash(id);
    if (this.writable(shardOf(h)).set(id, h, value)) this.size++;
    return this;
  }

  /** Removes `id`; true when it was there. */
  delete(id: string): boolean {
    if (this === readIndex) readIndex = null;
    const h = this.hash(id);
    if (!this.shards[shardOf(h)]?.has(id, h)) return false;
    this.writable(shardOf(h)).delete(id, h);
    this.size--;
    return true;
  }

  /** Shard `k`, copied first unless this index made it (another index may share it). */
  private writable(k: number): IdSlots<V> {
    if ((this.own & (1 << k)) === 0) {
      this.shards[k] = this.shards[k]?.copy() ?? IdSlots.empty();
      this.own |= 1 << k;
    }
    return this.shards[k]!;
  }

  /** The value of `id`, or undefined when the index does not hold it. */
  get(id: string): V | undefined {
    if (this === readIndex && id === readId) return readValue as V | undefined;
    const h = this.hash(id);
    const value = this.shards[shardOf(h)]?.get(id, h);
    readIndex = this;
    readId = id;
    readValue = value;
    return value;
  }

  /** Whether the index holds `id`. */
  has(id: string): boolean {
    const h = this.hash(id);
    return this.shards[shardOf(h)]?.has(id, h) === true;
  }

  /** Every `[id, value]` pair, shard by shard: not in insertion order. */
  *entries(): MapIterator<[string, V]> {
    for (const shard of this.shards) if (shard) yield* shard.entries();
  }

  /** Every id, in the order of `entries()` (not insertion order). */
  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  /** Every value, in the order of `entries()` (not insertion order). */
  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  /** The same as `entries()`: `for (const [id, value] of index)`. */
  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  /** Calls `callback` with each value, its id and the index, in the order of `entries()`. */
  forEach(callback: (value: V, id: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) callback(value, id, this);
  }
}
