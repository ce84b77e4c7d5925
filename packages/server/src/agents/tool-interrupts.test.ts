import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { answerResume, askFor } from './scripted-interrupts.js';
import { clientToolAnswers, interruptIdOf } from './tool-interrupts.js';

const base: RunAgentInput = {
  threadId: 't',
  runId: 'r',
  messages: [],
  tools: [],
  context: [],
  state: {},
};

describe('interrupt ids stay answerable', () => {
  it('a tool call id outside the id alphabet, or too long, still makes a valid resume id', () => {
    expect(interruptIdOf('tool', 'call/1 ä')).toBe('tool-call_1__');
    const long = interruptIdOf('approval', 'x'.repeat(500));
    expect(long).toBe(`approval-${'x'.repeat(180)}`);
    expect(long.length).toBeLessThanOrEqual(200);
  });

  it('client tool answers: a result, an error, a cancel; other calls have none', () => {
    const answers = clientToolAnswers(
      {
        ...base,
        resume: [
          { interruptId: 'tool-a', status: 'resolved', payload: { result: [1] } },
          { interruptId: 'tool-b', status: 'resolved', payload: { error: 'no GPS' } },
          { interruptId: 'tool-c', status: 'cancelled' },
        ],
      },
      ['a', 'b', 'c', 'd'],
    );
    expect([...answers]).toEqual([
      ['a', { result: [1] }],
      ['b', { error: 'no GPS' }],
      ['c', { error: 'cancelled' }],
    ]);
  });

  it('the scripted agent with a 200-character run id asks and continues on the same ids', () => {
    const runId = 'r'.repeat(200);
    const asked = [...askFor('tool_approval', { ...base, runId })];
    const end = asked.at(-1) as Extract<AGUIEvent, { type: 'RUN_FINISHED' }>;
    const interrupt = end.outcome?.type === 'interrupt' ? end.outcome.interrupts[0]! : null;
    expect(interrupt?.id).toBe(`approval-${'r'.repeat(180)}`);
    const next = {
      ...base,
      runId: 'n',
      resume: [
        { interruptId: interrupt!.id, status: 'resolved' as const, payload: { approved: true } },
      ],
    };
    const events = [...answerResume(next)];
    expect(events[0]).toMatchObject({
      type: 'TOOL_CALL_RESULT',
      toolCallId: interrupt!.toolCallId,
    });
  });
});
