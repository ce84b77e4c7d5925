import { describe, expect, it } from 'vitest';
import { IdIndex } from './id-index.js';

const RUN = '3f2a6c1e-8b7d-4e2a-9c1f-0123456789ab';

describe('IdIndex (the fold’s sharded id tables)', () => {
  const ids = ['constructor', '__proto__', 'toString', '', 'a', 'm0', 'm1', 'ø', '😀'];

  it('is a ReadonlyMap of exactly what was set, whatever the ids', () => {
    const index = IdIndex.from<number>();
    for (const [i, id] of ids.entries()) index.set(id, i);
    index.set('a', 40);
    const expected = new Map(ids.map((id, i) => [id, id === 'a' ? 40 : i]));
    expect(index.size).toBe(ids.length);
    expect(ids.map((id) => index.get(id))).toStrictEqual([0, 1, 2, 3, 40, 5, 6, 7, 8]);
    expect([index.has('hasOwnProperty'), index.get('valueOf'), index.has('__proto__')]).toEqual([
      false,
      undefined,
      true,
    ]);
    expect(new Map(index)).toStrictEqual(expected);
    expect([...index.keys()].sort()).toStrictEqual([...ids].sort());
    expect([...index.values()].sort((a, b) => a - b)).toStrictEqual([0, 1, 2, 3, 5, 6, 7, 8, 40]);
    const seen: [string, number][] = [];
    index.forEach((value, id, map) => {
      expect(map).toBe(index);
      seen.push([id, value]);
    });
    expect(new Map(seen)).toStrictEqual(expected);
  });

  it('a copy shares the shards it has not written; the original never changes', () => {
    const base = IdIndex.from<number>();
    for (let i = 0; i < 1000; i++) base.set(`m${i}`, i);
    const copy = IdIndex.from(base);
    copy.set('new', 1000);
    copy.set('m5', -5);
    expect([copy.delete('m6'), copy.delete('absent')]).toStrictEqual([true, false]);
    expect([copy.size, copy.get('new'), copy.get('m5'), copy.has('m6')]).toStrictEqual([
      1000,
      1000,
      -5,
      false,
    ]);
    expect([base.size, base.get('new'), base.get('m5'), base.get('m6')]).toStrictEqual([
      1000,
      undefined,
      5,
      6,
    ]);
    // At most the three shards written were copied: a batch that adds one message costs a
    // shard (~1/32 of the index), not the whole index.
    const shared = (index: IdIndex<number>) => (index as unknown as { shards: unknown[] }).shards;
    const same = shared(copy).filter((shard, k) => shard === shared(base)[k]).length;
    expect(same).toBeGreaterThanOrEqual(shared(base).length - 3);
  });

  it.each([
    ['counters', (i: number) => `m${i}`],
    ['the server’s ids (a run id, then a counter)', (i: number) => `msg-${RUN}-${i}`],
    ['uuids', () => crypto.randomUUID()],
  ])('30k ids spread over the shards (none holds 4,096): %s', (_, idOf) => {
    const index = IdIndex.from<number>();
    for (let i = 0; i < 30_000; i++) index.set(idOf(i), i);
    const { shards } = index as unknown as { shards: (Map<string, number> | undefined)[] };
    const sizes = Array.from(shards, (shard) => shard?.size ?? 0);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(Math.max(...sizes)).toBeLessThan(4096);
  });

  it('a read after a write, or from another index with the same id, sees that index’s own value', () => {
    // The last get's answer is remembered (a stream looks one id up event after event);
    // every write to that index forgets it, and another index never gets it.
    const base = IdIndex.from<number>();
    base.set('m1', 1);
    const copy = IdIndex.from(base);
    expect([base.get('m1'), copy.get('m1')]).toStrictEqual([1, 1]);
    copy.set('m1', 2);
    expect([copy.get('m1'), base.get('m1'), copy.get('m1')]).toStrictEqual([2, 1, 2]);
    expect(copy.get('m1')).toBe(2);
    copy.delete('m1');
    expect([copy.get('m1'), copy.has('m1'), base.get('m1')]).toStrictEqual([undefined, false, 1]);
    expect(base.get('m2')).toBe(undefined);
    base.set('m2', 3);
    expect([base.get('m2'), copy.get('m2')]).toStrictEqual([3, undefined]);
  });

  it('a plain Map becomes an index of the same entries', () => {
    const index = IdIndex.from(new Map([['u1', 0]]));
    index.set('a1', 1);
    expect(new Map(index)).toStrictEqual(
      new Map([
        ['u1', 0],
        ['a1', 1],
      ]),
    );
  });
});
