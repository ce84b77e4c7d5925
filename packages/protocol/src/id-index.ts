/** Shards per index: one bit each in an int32 mask, and ~60k ids stay under 4k per shard. */
const SHARDS = 32;

/**
 * A cheap, stable shard for an id: its length, its last 3 characters (where counters change)
 * and its middle one (random ids change everywhere). Four reads: it runs twice per new id.
 * Not a defence: ids that differ only elsewhere (a counter mid-id) share a shard, which is
 * then one plain Map, as before (each Map's own hash is V8's, seeded).
 */
function shardOf(id: string): number {
  if (typeof id !== 'string') return 0;
  const n = id.length;
  let h = n;
  if (n >= 4) {
    h ^=
      id.charCodeAt(n - 1) ^
      (id.charCodeAt(n - 2) << 3) ^
      (id.charCodeAt(n - 3) << 6) ^
      (id.charCodeAt(n >> 1) << 1);
  } else {
    for (let i = 0; i < n; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
  }
  return (h ^ (h >>> 5)) & (SHARDS - 1);
}

/**
 * The fold's id tables (`messageIndex`, `toolCallOwner`): a `ReadonlyMap` over 32 Maps
 * picked by a cheap hash of the id, so ids are data, never object keys. Why not one Map:
 * V8 grows a Map by rehashing it into a table twice the size, and past 4,096 entries that
 * table is a large object on freshly mapped pages — a join over 30k unknown ids spent most
 * of its time in page faults and rehashes of one index (`pnpm bench linearity`). Shards of
 * a few thousand stay in the young generation. A batch copies only the shards it writes
 * (`writable`), never the whole index. Ids that defeat the hash share one shard: one plain
 * Map, as before. It iterates shard by shard, not in insertion order (`messages` has the order).
 */
export class IdIndex<V> implements ReadonlyMap<string, V> {
  private constructor(
    private readonly shards: (Map<string, V> | undefined)[],
    public size: number,
    /** Bit k set: shard k was made by this copy, which may write it. */
    private own: number,
  ) {}

  /** A copy of `map` (empty without one) the fold may write; shards shared until written. */
  static from<V>(map?: ReadonlyMap<string, V>): IdIndex<V> {
    if (map instanceof IdIndex) return new IdIndex(map.shards.slice(), map.size, 0);
    const index = new IdIndex<V>([], 0, 0);
    if (map) for (const [id, value] of map) index.set(id, value);
    return index;
  }

  set(id: string, value: V): this {
    const shard = this.writable(shardOf(id));
    const before = shard.size;
    shard.set(id, value);
    this.size += shard.size - before;
    return this;
  }

  delete(id: string): boolean {
    if (!this.has(id)) return false;
    this.writable(shardOf(id)).delete(id);
    this.size--;
    return true;
  }

  /** Shard `k`, copied first unless this index made it (another index may share it). */
  private writable(k: number): Map<string, V> {
    if ((this.own & (1 << k)) === 0) {
      this.shards[k] = new Map(this.shards[k]);
      this.own |= 1 << k;
    }
    return this.shards[k]!;
  }

  get(id: string): V | undefined {
    return this.shards[shardOf(id)]?.get(id);
  }

  has(id: string): boolean {
    return this.shards[shardOf(id)]?.has(id) === true;
  }

  *entries(): MapIterator<[string, V]> {
    for (const shard of this.shards) if (shard) yield* shard.entries();
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, id: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) callback(value, id, this);
  }
}
