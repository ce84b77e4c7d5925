import { describe, expect, it } from 'vitest';
import { BatchMessages } from './batch-messages.js';
import type { RunMessage } from './state.js';

const message = (id: string): RunMessage => ({ id, role: 'assistant', content: id });

describe('BatchMessages (one batch’s view of the messages)', () => {
  it('a batch that changes nothing gives back the base array itself', () => {
    const base = Object.freeze([message('a'), message('b')]);
    const list = new BatchMessages(base);
    expect([list.length, list.at(0), list.at(1), list.at(2)]).toStrictEqual([
      2,
      base[0],
      base[1],
      undefined,
    ]);
    expect(list.result()).toBe(base);
  });

  it('adds across chunk boundaries and joins base, replacements and additions in order', () => {
    const base = Object.freeze([message('a'), message('b')]);
    const list = new BatchMessages(base);
    const added = Array.from({ length: 10_000 }, (_, i) => message(`m${i}`));
    expect(added.map((m) => list.push(m))).toStrictEqual(added.map((_, i) => i + 2));
    const b2 = message('b2');
    const m5000 = message('m5000 again');
    list.set(1, b2);
    list.set(5002, m5000);
    expect([list.length, list.at(1), list.at(4097), list.at(4098), list.at(5002)]).toStrictEqual([
      10_002,
      b2,
      added[4095],
      added[4096],
      m5000,
    ]);
    const result = list.result();
    const expected = [base[0], b2, ...added];
    expected[5002] = m5000;
    expect(result).toStrictEqual(expected);
    // The base is never written: replacing one of its messages copies it once.
    expect(base).toStrictEqual([message('a'), message('b')]);
  });

  it('a batch that only replaces gives a copy of the base with the replacement', () => {
    const base = Object.freeze([message('a'), message('b')]);
    const list = new BatchMessages(base);
    const a2 = message('a2');
    list.set(0, a2);
    expect(list.result()).toStrictEqual([a2, base[1]]);
    expect(base[0]).toStrictEqual(message('a'));
  });
});
