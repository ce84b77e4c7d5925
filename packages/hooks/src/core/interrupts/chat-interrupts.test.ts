import type { InterruptView, RunMessage } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { LocalAnswer } from './chat-interrupts.js';
import { deriveInterrupts, openBatch, parseServerInterrupts } from './chat-interrupts.js';

const approval = { id: 'i1', reason: 'tool_approval', toolCallId: 'c1', message: 'Delete?' };
const question = { id: 'i2', reason: 'question', message: 'Name?' };
const outcome = { type: 'interrupt' as const, interrupts: [approval, question] };
const messages = [
  {
    id: 'a1',
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', type: 'function', function: { name: 'delete_file', arguments: '{"path":"x"}' } },
    ],
  },
] as RunMessage[];
const base = { known: [], server: [], answers: [], messages };

describe('deriveInterrupts', () => {
  it('the followed run’s interrupt outcome is open, with the tool call it concerns', () => {
    const [a, q] = deriveInterrupts({ ...base, run: { runId: 'r1', outcome } });
    expect(a).toEqual({
      id: 'i1',
      reason: 'tool_approval',
      runId: 'r1',
      message: 'Delete?',
      toolCallId: 'c1',
      tool: { name: 'delete_file', arguments: '{"path":"x"}' },
      anchor: 'a1',
      execution: null,
      status: 'open',
      answer: null,
      pending: null,
      answeredBy: null,
      answeredHere: false,
    });
    expect(q).toMatchObject({ id: 'i2', status: 'open', tool: null, anchor: null });
    const [, anchored] = deriveInterrupts({
      ...base,
      run: { runId: 'r1', outcome, lastMessageId: 'a1' },
    });
    expect(anchored).toMatchObject({ id: 'i2', anchor: 'a1' });
  });

  it('a partial answer is a draft; both answered, one batch; the server’s final status wins', () => {
    const draft: LocalAnswer = {
      interruptId: 'i1',
      status: 'resolved',
      payload: { approved: true },
      state: 'draft',
      runId: null,
    };
    const run = { runId: 'r1', outcome };
    const drafted = deriveInterrupts({ ...base, answers: [draft], run });
    expect(drafted.map((i) => [i.id, i.status, i.pending])).toEqual([
      ['i1', 'open', 'draft'],
      ['i2', 'open', null],
    ]);
    expect(openBatch(drafted).map((i) => i.id)).toEqual(['i1', 'i2']);
    const queued: LocalAnswer = { ...draft, state: 'queued', runId: 'r2' };
    const server: InterruptView[] = [
      { ...approval, runId: 'r1', status: 'resolved', answeredBy: 'r2' },
      { ...question, runId: 'r1', status: 'resolved', answeredBy: 'r9' },
    ];
    const [a, q] = deriveInterrupts({ ...base, answers: [queued], server, run });
    expect([a!.status, a!.answeredHere, a!.answer]).toEqual([
      'resolved',
      true,
      { interruptId: 'i1', status: 'resolved', payload: { approved: true } },
    ]);
    expect([q!.status, q!.answeredHere, q!.answeredBy, q!.answer]).toEqual([
      'resolved',
      false,
      'r9',
      { interruptId: 'i2', status: 'resolved' },
    ]);
  });

  it('a run the chat moved past without this page’s answer reads as answered elsewhere', () => {
    const known = [{ ...approval, runId: 'r1' }];
    const [a] = deriveInterrupts({ ...base, known, run: { runId: 'r3', outcome: null } });
    expect([a!.status, a!.answeredBy, a!.answeredHere]).toEqual(['resolved', 'r3', false]);
  });

  it('a sent answer stays answered here after the thread moves on', () => {
    const known = [{ ...approval, runId: 'r1' }];
    const sent: LocalAnswer = {
      interruptId: 'i1',
      status: 'resolved',
      payload: { approved: false, reason: 'no' },
      state: 'sent',
      runId: 'r2',
    };
    const [a] = deriveInterrupts({
      ...base,
      known,
      answers: [sent],
      run: { runId: 'r5', outcome: null },
    });
    expect([a!.status, a!.answeredHere, a!.answer?.payload]).toEqual([
      'resolved',
      true,
      { approved: false, reason: 'no' },
    ]);
  });
});

describe('parseServerInterrupts', () => {
  it('keeps well-formed entries only', () => {
    const good = { id: 'i1', reason: 'question', runId: 'r1', status: 'open' };
    expect(
      parseServerInterrupts([good, null, { ...good, status: 'maybe' }, { id: 1 }, 'x']),
    ).toEqual([good]);
    expect(parseServerInterrupts({ not: 'a list' })).toEqual([]);
  });
});
