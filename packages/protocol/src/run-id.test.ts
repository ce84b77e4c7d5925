import { describe, expect, it } from 'vitest';
import { isWireId, runIdProblem } from './run-id.js';

describe('runIdProblem: the rule for a client-chosen runId', () => {
  it('takes a UUID and 22+ characters of the id alphabet', () => {
    expect(runIdProblem('4f8a4c1e-93b2-4d4e-9a51-0c6e2f7d8b10')).toBeNull();
    expect(runIdProblem('a'.repeat(22))).toBeNull();
    expect(runIdProblem(`r:${'A_b.-'.repeat(39)}z`)).toBeNull(); // 198 characters
  });

  it('names why it refuses the rest', () => {
    const shape = 'runId must be 1-200 characters of A-Z a-z 0-9 . _ : -, not . or ..';
    const short =
      'runId must be unguessable: at least 22 characters with 122 random bits (use a random UUID)';
    for (const bad of [
      5,
      null,
      '',
      'run 0123456789abcdefghijk',
      'r/0123456789abcdefghijk',
      'x'.repeat(201),
      '.',
      '..',
    ]) {
      expect(runIdProblem(bad)).toBe(shape);
    }
    expect(runIdProblem('a'.repeat(21))).toBe(short);
    expect(runIdProblem('o1')).toBe(short);
  });

  it('isWireId: the alphabet, 1-200 characters, not . or ..', () => {
    expect(['a', 'a.b', '...', 'x'.repeat(200)].map(isWireId)).toEqual([true, true, true, true]);
    expect(['', '.', '..', 'a b', 'x'.repeat(201), 7].map(isWireId)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
