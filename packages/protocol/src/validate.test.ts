import { describe, expect, it } from 'vitest';
import { isPlainObject, messageProblem } from './index.js';

describe('isPlainObject (the one check hooks and protocol share)', () => {
  it('is true for objects and false for null, arrays and primitives', () => {
    const values: unknown[] = [{}, { a: 1 }, Object.create(null), null, [], [1], 'x', 5, true];
    expect(values.map((v) => (isPlainObject(v) ? 'object' : 'not')).join(' ')).toBe(
      'object object object not not not not not not',
    );
  });

  it('is what messageProblem refuses a non-object message with', () => {
    expect([null, [], 'm'].map(messageProblem)).toEqual(
      Array(3).fill('a message that is not an object'),
    );
  });
});
