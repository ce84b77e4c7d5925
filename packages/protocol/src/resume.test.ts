import { describe, expect, it } from 'vitest';
import { ResumableError } from './errors.js';
import { parseResume } from './resume.js';

/** The `bad_request` message `parseResume` throws for `value`, or null when it accepts it. */
function problem(value: unknown): string | null {
  try {
    parseResume(value);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ResumableError);
    expect((error as ResumableError).code).toBe('bad_request');
    return (error as ResumableError).message;
  }
}

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });

describe('parseResume: the one rule for the server and a client sending a stored answer', () => {
  it('accepts answers and returns exactly their fields', () => {
    expect(parseResume(undefined)).toBeUndefined();
    expect(parseResume(null)).toBeUndefined();
    expect(
      parseResume([
        { interruptId: 'i-1:a.b_c', status: 'resolved', payload: { ok: true }, extra: 1 },
        { interruptId: 'i2', status: 'cancelled' },
      ]),
    ).toEqual([
      { interruptId: 'i-1:a.b_c', status: 'resolved', payload: { ok: true } },
      { interruptId: 'i2', status: 'cancelled' },
    ]);
    expect(parseResume([{ interruptId: 'i', status: 'resolved', payload: nested(60) }])).toEqual([
      { interruptId: 'i', status: 'resolved', payload: nested(60) },
    ]);
  });

  it('names the first problem of a shape the server refuses', () => {
    const ok = { interruptId: 'i1', status: 'resolved' };
    expect(problem(5)).toBe('resume must be an array of {interruptId, status, payload?}');
    expect(problem(Array.from({ length: 101 }, (_, i) => ({ ...ok, interruptId: `i${i}` })))).toBe(
      'resume has 101 entries, over the limit of 100',
    );
    expect(problem([5])).toBe('resume[0] must be an object {interruptId, status, payload?}');
    expect(problem([{ ...ok, interruptId: 'i 1' }])).toBe(
      'resume[0].interruptId must be 1-200 characters of A-Z a-z 0-9 . _ : -',
    );
    expect(problem([ok, { ...ok, status: 'cancelled' }])).toBe(
      'resume[1] answers interrupt i1 a second time',
    );
    expect(problem([{ ...ok, status: 'maybe' }])).toBe(
      'resume[0].status must be "resolved" or "cancelled"',
    );
    expect(problem([{ ...ok, payload: 'x'.repeat(17 * 1024) }])).toBe(
      'resume[0].payload is 17410 bytes of JSON, over the limit of 16384',
    );
    expect(problem([{ ...ok, payload: nested(62) }])).toBe(
      'resume[0].payload nests deeper than 61 levels',
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(problem([{ ...ok, payload: cycle }])).toBe('resume[0].payload is not JSON');
  });
});
