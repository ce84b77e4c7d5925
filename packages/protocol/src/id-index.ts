/** How many Maps an index is split into (a power of two). */
const SHARDS = 32;

/**
 * A cheap, stable shard for an id: a few of its characters and its length. An id that is
 * not a string (a malformed event the fold tolerates) goes to shard 0, as a Map would take it.
 */
function shardOf(id: string): number {
  if (typeof id !== 'string' || id.length === 0) return 0;
  const n = id.length;
  return (id.charCodeAt(n - 1) * 31 + id.charCodeAt(n >> 1) * 7 + n) & (SHARDS - 1);
}

/**
 * The fold's id → value tables (`messageIndex`, `toolCallOwner`): a `ReadonlyMap` over 32
 * Maps picked by a cheap hash of the id. Ids are data, never object keys. Why shards: V8
 * grows one Map by rehashing it into a table twice the size, and past a few thousand
 * entries that table is a large object on fresh pages; a join over 30k unknown ids spent
 * most of its time growing one index (`pnpm bench linearity`). Small shards stay cheap,
 * and a batch copies only the shards it writes (`writable`), never the whole index. An id
 * set that defeats the hash lands in one shard: one plain Map, no worse than before.
 */
export class IdIndex<V> implements ReadonlyMap<string, V> {
  /** Shards this copy made itself and may write; null once sealed (a state's own index). */
  private owned: boolean[] | null;

  private constructor(
    private readonly shards: Map<string, V>[],
    private count: number,
    owned: boolean[] | null,
  ) {
    this.owned = owned;
  }

  /** An empty index the caller fills (`set`) and then `seal`s. */
  static empty<V>(): IdIndex<V> {
    const shards = Array.from({ length: SHARDS }, () => new Map<string, V>());
    return new IdIndex(
      shards,
      0,
      shards.map(() => true),
    );
  }

  /** A writable copy of any id map: an IdIndex's shards are shared, a plain Map is copied. */
  static writableFrom<V>(map: ReadonlyMap<string, V>): IdIndex<V> {
    if (map instanceof IdIndex) return map.writable();
    const index = IdIndex.empty<V>();
    for (const [id, value] of map) index.set(id, value);
    return index;
  }

  /** A copy sharing every shard until `set` or `delete` writes one (then that one is copied). */
  writable(): IdIndex<V> {
    return new IdIndex(
      this.shards.slice(),
      this.count,
      this.shards.map(() => false),
    );
  }

  /** Ends writing: the index now belongs to a state and is never written again. */
  seal(): this {
    this.owned = null;
    return this;
  }

  private shardForWrite(id: string): Map<string, V> {
    if (this.owned === null) throw new TypeError('a sealed IdIndex is read-only');
    const k = shardOf(id);
    if (!this.owned[k]) {
      this.shards[k] = new Map(this.shards[k]);
      this.owned[k] = true;
    }
    return this.shards[k]!;
  }

  set(id: string, value: V): this {
    const shard = this.shardForWrite(id);
    const size = shard.size;
    shard.set(id, value);
    this.count += shard.size - size;
    return this;
  }

  delete(id: string): boolean {
    if (!this.has(id)) return false;
    this.shardForWrite(id).delete(id);
    this.count--;
    return true;
  }

  get(id: string): V | undefined {
    return this.shards[shardOf(id)]!.get(id);
  }

  has(id: string): boolean {
    return this.shards[shardOf(id)]!.has(id);
  }

  get size(): number {
    return this.count;
  }

  *entries(): MapIterator<[string, V]> {
    for (const shard of this.shards) yield* shard.entries();
  }

  *keys(): MapIterator<string> {
    for (const shard of this.shards) yield* shard.keys();
  }

  *values(): MapIterator<V> {
    for (const shard of this.shards) yield* shard.values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }
}
