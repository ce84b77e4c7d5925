import { describe, expect, it } from 'vitest';
import { EventType } from './events.js';
import { RecentStarts } from './recent-list.js';
import type { SynthesizedStart } from './state.js';

const start = (id: string, atOffset: number): SynthesizedStart => ({
  type: EventType.TEXT_MESSAGE_START,
  id,
  atOffset,
});

function ring(max: number, ids: readonly string[]): RecentStarts {
  const starts = new RecentStarts(max);
  ids.forEach((id, i) => {
    starts.push(EventType.TEXT_MESSAGE_START, id, 10 + i);
  });
  return starts;
}

describe('RecentStarts', () => {
  it('keeps the base’s latest entries before the batch’s while they fit', () => {
    const base = Object.freeze([start('b1', 1), start('b2', 2), start('b3', 3)]);
    expect(ring(4, ['n1', 'n2']).after(base)).toStrictEqual([
      start('b2', 2),
      start('b3', 3),
      start('n1', 10),
      start('n2', 11),
    ]);
    expect(base).toHaveLength(3);
  });

  it('a batch of exactly max leaves none of the base', () => {
    expect(ring(3, ['n1', 'n2', 'n3']).after([start('b1', 1)])).toStrictEqual([
      start('n1', 10),
      start('n2', 11),
      start('n3', 12),
    ]);
  });

  it('a batch past max keeps its last max, oldest first, however often the ring wraps', () => {
    const ids = Array.from({ length: 3 * 4 + 2 }, (_, i) => `n${i}`);
    expect(ring(4, ids).after([start('b1', 1)])).toStrictEqual([
      start('n10', 20),
      start('n11', 21),
      start('n12', 22),
      start('n13', 23),
    ]);
  });

  it('an id named like an Object.prototype member is data', () => {
    expect(ring(2, ['__proto__', 'constructor']).after([])).toStrictEqual([
      start('__proto__', 10),
      start('constructor', 11),
    ]);
  });
});
