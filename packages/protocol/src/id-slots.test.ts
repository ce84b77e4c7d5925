import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdSlots, idHash } from './id-slots.js';

/** What a shard holds, read through its public surface. */
const contents = (slots: IdSlots<number>) => new Map(slots.entries());
const usesMap = (slots: IdSlots<number>) => (slots as unknown as { map: unknown }).map !== null;

/**
 * 40-character ids that differ only where `idHash` does not read (characters 1–9 of 40):
 * every one has the same hash, the worst case for the table.
 */
const colliding = (k: number) => `x${String(k).padStart(9, '0')}${'y'.repeat(30)}`;

describe('IdSlots (one shard of the fold’s id index)', () => {
  it('ids that share a hash fall back to a Map and stay correct', () => {
    const hashes = new Set(Array.from({ length: 2000 }, (_, k) => idHash(colliding(k))));
    expect(hashes.size).toBe(1);
    const slots = IdSlots.empty<number>();
    for (let k = 0; k < 2000; k++) slots.set(colliding(k), idHash(colliding(k)), k);
    // A table would have walked a run of up to 2,000 for every one of them.
    expect(usesMap(slots)).toBe(true);
    expect([slots.size, slots.get(colliding(1999), idHash(colliding(1999)))]).toEqual([2000, 1999]);
    expect(slots.delete(colliding(5), idHash(colliding(5)))).toBe(true);
    expect([slots.size, slots.has(colliding(5), idHash(colliding(5)))]).toEqual([1999, false]);
  });

  it('hashes aimed at the low bits cannot double the table for a few ids each', () => {
    // An attacker who knows the hash: each round, 49 ids that share the table's current low
    // bits (one run too long) but split at the next bit, so a doubling would separate them.
    // Twenty rounds could have grown 980 ids to 2^23 slots; the table stays ≤ 8 per entry.
    const slots = IdSlots.empty<number>();
    const inner = slots as unknown as { mask: number };
    for (let round = 0; round < 20 && !usesMap(slots); round++) {
      const bits = Math.log2(inner.mask + 1);
      for (let i = 0; i < 49; i++) {
        const h = (((i & 1) << bits) | ((i >> 1) << (bits + 1))) & 0x3fffffff;
        slots.set(`r${round}-${i}`, h, i);
      }
    }
    expect(usesMap(slots)).toBe(true);
    expect(inner.mask + 1).toBeLessThanOrEqual(8 * Math.max(8, slots.size));
  });

  it('ordinary ids stay in the table (30k server ids, counters, uuids)', () => {
    const run = '3f2a6c1e-8b7d-4e2a-9c1f-0123456789ab';
    for (const idOf of [
      (i: number) => `msg-${run}-${i}`,
      (i: number) => `m${i}`,
      () => crypto.randomUUID(),
    ]) {
      const slots = IdSlots.empty<number>();
      const ids = Array.from({ length: 30_000 }, (_, i) => idOf(i));
      for (const [i, id] of ids.entries()) slots.set(id, idHash(id), i);
      expect(usesMap(slots)).toBe(false);
      expect(slots.size).toBe(30_000);
      expect(ids.every((id, i) => slots.get(id, idHash(id)) === i)).toBe(true);
    }
  });

  it('a copy is written apart from its original', () => {
    const a = IdSlots.empty<number>();
    for (let i = 0; i < 20; i++) a.set(`m${i}`, idHash(`m${i}`), i);
    const b = a.copy();
    b.set('new', idHash('new'), 20);
    b.delete('m3', idHash('m3'));
    expect([a.size, a.get('m3', idHash('m3')), a.has('new', idHash('new'))]).toEqual([
      20,
      3,
      false,
    ]);
    expect([b.size, b.has('m3', idHash('m3')), b.get('new', idHash('new'))]).toEqual([
      20,
      false,
      20,
    ]);
  });

  // Hashes cut to 0–7 bits make runs long and every delete move entries back; 40 ids stay
  // under the probe limit, so the table (not its Map fallback) answers. A Map is the model.
  it('any mix of sets and deletes answers as a Map would (hashes forced to collide)', () => {
    const pool = ['constructor', '__proto__', 'toString', '', '😀', 'ø'];
    for (let i = pool.length; i < 40; i++) pool.push(`id-${i}`);
    const op = fc.tuple(fc.constantFrom('set', 'delete'), fc.constantFrom(...pool), fc.integer());
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 0, max: 7 }), (ops, bits) => {
        const slots = IdSlots.empty<number>();
        const model = new Map<string, number>();
        const h = (key: string) => idHash(key) & ((1 << bits) - 1);
        for (const [kind, key, value] of ops) {
          if (kind === 'set') {
            expect(slots.set(key, h(key), value)).toBe(!model.has(key));
            model.set(key, value);
          } else {
            expect(slots.delete(key, h(key))).toBe(model.delete(key));
          }
          expect(slots.size).toBe(model.size);
        }
        expect(usesMap(slots)).toBe(false);
        expect(contents(slots)).toStrictEqual(model);
        for (const key of model.keys()) expect(slots.get(key, h(key))).toBe(model.get(key));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a non-string id as 0 instead of throwing (ids from the wire are unknown values)', () => {
    expect([idHash(7 as unknown as string), idHash(null as unknown as string)]).toEqual([0, 0]);
  });
});
