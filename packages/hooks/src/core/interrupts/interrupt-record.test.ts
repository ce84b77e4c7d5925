import { describe, expect, it } from 'vitest';
import type { LocalAnswer } from './chat-interrupts.js';
import { answersFollowingOutbox } from './interrupt-record.js';

const VALID = 'run-valid-0123456789abcdef';
const answer = (interruptId: string, runId: string | null, state: LocalAnswer['state']) =>
  ({ interruptId, status: 'cancelled', state, runId }) as LocalAnswer;
const ids = () => {
  let n = 0;
  return () => `run-new-${++n}-0123456789abcdef`;
};

describe('answersFollowingOutbox', () => {
  it('queued answers take the runId of the outbox item that carries their interrupt', () => {
    const answers = [answer('i1', 'q1', 'queued'), answer('i2', 'q1', 'queued')];
    const outbox = [{ runId: VALID, resume: [{ interruptId: 'i1' }, { interruptId: 'i2' }] }];
    expect(answersFollowingOutbox(answers, outbox, ids())).toEqual([
      answer('i1', VALID, 'queued'),
      answer('i2', VALID, 'queued'),
    ]);
  });

  it('answers no item carries, under one refused runId, share one new runId (one continuation)', () => {
    const answers = [
      answer('i1', 'q1', 'queued'),
      answer('i2', 'q1', 'queued'),
      answer('i3', 'q2', 'queued'),
    ];
    expect(answersFollowingOutbox(answers, [], ids())).toEqual([
      answer('i1', 'run-new-1-0123456789abcdef', 'queued'),
      answer('i2', 'run-new-1-0123456789abcdef', 'queued'),
      answer('i3', 'run-new-2-0123456789abcdef', 'queued'),
    ]);
  });

  it('null when nothing moves: drafts, sent answers, and queued ones under a runId the server takes', () => {
    const answers = [
      answer('i1', null, 'draft'),
      answer('i2', 'q1', 'sent'),
      answer('i3', VALID, 'queued'),
    ];
    expect(answersFollowingOutbox(answers, [{ runId: VALID }], ids())).toBeNull();
  });
});
