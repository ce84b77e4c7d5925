import { describe, expect, it } from 'vitest';
import { outcomeProblem } from './outcome.js';

const ask = (...interrupts: unknown[]) => ({ type: 'interrupt', interrupts });
const approval = (id: unknown) => ({ id, reason: 'tool_approval' });

describe('outcomeProblem (a RUN_FINISHED outcome)', () => {
  it('takes the AG-UI outcomes this server can store and answer', () => {
    expect(outcomeProblem(undefined)).toBe(null);
    expect(outcomeProblem({ type: 'success' })).toBe(null);
    expect(outcomeProblem({ type: 'cancelled' })).toBe(null);
    expect(
      outcomeProblem(ask({ id: 'tool-1', reason: 'client_tool', toolCallId: '1', message: 'Run' })),
    ).toBe(null);
  });

  it('names the first problem of any other', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'outcome must be an object'],
      [{ type: { evil: 1 } }, 'outcome.type must be "success", "interrupt" or "cancelled"'],
      [{ type: 'interrupt', interrupts: 'nope' }, 'outcome.interrupts must be a non-empty array'],
      [ask(), 'outcome.interrupts must be a non-empty array'],
      [ask(7), 'outcome.interrupts[0] must be an object'],
      [
        ask(approval({ x: 1 })),
        'outcome.interrupts[0].id must be 1-200 characters of A-Z a-z 0-9 . _ : -',
      ],
      [
        ask(approval('a b')),
        'outcome.interrupts[0].id must be 1-200 characters of A-Z a-z 0-9 . _ : -',
      ],
      [
        ask(approval('__proto__'), approval('__proto__')),
        'outcome.interrupts[1].id "__proto__" is used twice',
      ],
      [ask({ id: 'a' }), 'outcome.interrupts[0].reason must be text'],
      [ask({ ...approval('a'), message: {} }), 'outcome.interrupts[0].message must be text'],
      [ask({ ...approval('a'), toolCallId: 1 }), 'outcome.interrupts[0].toolCallId must be text'],
      [
        ask(...Array.from({ length: 101 }, (_, i) => approval(`i${i}`))),
        'outcome has 101 interrupts, over the 100 one answer can take',
      ],
    ];
    for (const [outcome, problem] of cases) expect(outcomeProblem(outcome)).toBe(problem);
  });
});
