import { describe, expect, it } from 'vitest';
import { ResumableError } from './errors.js';
import { applyJsonPatch } from './patch.js';

const code = (value: unknown) => (value instanceof ResumableError ? value.code : 'applied');

describe('applyJsonPatch (RFC 6902, strict, pure)', () => {
  it('applies every operation without touching the input, sharing unchanged branches', () => {
    const doc = { a: 1, list: [1, 2], keep: { deep: true }, gone: 1 };
    const next = applyJsonPatch(doc, [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'add', path: '/list/1', value: 9 },
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'remove', path: '/gone' },
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'move', from: '/b', path: '/c' },
      { op: 'test', path: '/c', value: 2 },
    ]) as Record<string, unknown>;
    expect(next).toEqual({ a: 2, list: [1, 9, 2, 3], keep: { deep: true }, c: 2 });
    expect(doc).toEqual({ a: 1, list: [1, 2], keep: { deep: true }, gone: 1 });
    expect(next.keep).toBe(doc.keep);
    expect(applyJsonPatch(undefined, [{ op: 'add', path: '/x', value: 1 }])).toEqual({ x: 1 });
  });

  it('refuses what the RFC refuses, as bad_patch', () => {
    const doc = { a: 1, list: [1] };
    const bad: unknown[][] = [
      [{ op: 'remove', path: '/missing' }],
      [{ op: 'replace', path: '/missing', value: 1 }],
      [{ op: 'add', path: '/no/parent', value: 1 }],
      [{ op: 'move', from: '/missing', path: '/b' }],
      [{ op: 'copy', from: '/missing', path: '/b' }],
      [{ op: 'test', path: '/a', value: 2 }],
      [{ op: 'explode', path: '/a' }],
      [{ op: 'add', path: 'a', value: 1 }],
      [{ op: 'add', value: 1 }],
      ['not an operation'],
    ];
    for (const patch of bad)
      expect(code(applyJsonPatch(doc, patch)), JSON.stringify(patch)).toBe('bad_patch');
  });

  it('never reaches a prototype', () => {
    for (const path of ['/__proto__/polluted', '/constructor/prototype/polluted', '/a/__proto__']) {
      const result = applyJsonPatch({ a: {} }, [{ op: 'add', path, value: true }]);
      expect(code(result), path).toBe('bad_patch');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
