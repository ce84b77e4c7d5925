import { describe, expect, it } from 'vitest';
import { IdIndex } from './id-index.js';

describe('IdIndex (the fold’s sharded id tables)', () => {
  const ids = ['constructor', '__proto__', 'toString', '', 'a', 'm0', 'm1', 'ø', '😀'];

  it('is a ReadonlyMap of exactly what was set, whatever the ids', () => {
    const index = IdIndex.empty<number>();
    for (const [i, id] of ids.entries()) index.set(id, i);
    index.set('a', 40);
    index.seal();
    expect(index.size).toBe(ids.length);
    expect(ids.map((id) => index.get(id))).toStrictEqual([0, 1, 2, 3, 40, 5, 6, 7, 8]);
    expect(index.has('hasOwnProperty')).toBe(false);
    expect(index.get('valueOf')).toBeUndefined();
    expect(new Map(index)).toStrictEqual(new Map(ids.map((id, i) => [id, id === 'a' ? 40 : i])));
    expect([...index.keys()].sort()).toStrictEqual([...ids].sort());
  });

  it('a writable copy shares shards until it writes one; the original never changes', () => {
    const base = IdIndex.empty<number>();
    for (let i = 0; i < 1000; i++) base.set(`m${i}`, i);
    base.seal();
    expect(() => base.set('x', 1)).toThrow(TypeError);
    const copy = base.writable();
    copy.set('new', 1000);
    copy.set('m5', -5);
    expect(copy.delete('m6')).toBe(true);
    expect(copy.delete('absent')).toBe(false);
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
  });

  it('a plain Map becomes a writable index of the same entries', () => {
    const index = IdIndex.writableFrom(new Map([['u1', 0]]));
    index.set('a1', 1);
    expect(Object.fromEntries(index.seal())).toStrictEqual({ u1: 0, a1: 1 });
  });
});
