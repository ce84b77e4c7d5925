/**
 * An `interrupt_answered` 409 that names no answering run (an older server, a proxy that
 * trims the body) still means the interrupt was answered: the continuation's answers go,
 * and the server's statuses are read again, so the interrupt shows what the server says
 * (answered by the other run), not open for this device to answer again.
 * Real `ChatSession` and `InterruptSession` against a `node:http` server on 127.0.0.1.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { BOUND_MS, hostileServerPerTest, server } from './hostile-harness.js';
import { RUN, THREAD } from './hostile-server.js';
import { heldInterrupts } from './records-harness.js';
import { waitFor } from './util.js';

hostileServerPerTest();

const OTHER = 'run-other-0123456789abcdef';
let answered = false;
beforeEach(() => {
  answered = false;
  server.handler = (hit, _req, res) => {
    if (hit.route === 'thread') {
      const i1 = { id: 'i1', reason: 'question', runId: RUN, status: 'open' };
      const interrupts = [answered ? { ...i1, status: 'resolved', answeredBy: OTHER } : i1];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    if (hit.route !== 'start') return false;
    answered = true; // another device answered first
    return server.error(res, 409, 'interrupt_answered');
  };
});

describe('a 409 interrupt_answered with no runId', () => {
  it('reads the statuses again: the interrupt shows answered by the other run', async () => {
    const { chat, hitl } = await heldInterrupts();
    await hitl.resolve('i1', { answer: 'mine' });
    await waitFor(() => server.count('start') === 1, 'the POST', BOUND_MS);
    await waitFor(() => hitl.getState().interrupts[0]?.status !== 'open', 'answered', BOUND_MS);
    const [i1] = hitl.getState().interrupts;
    expect([i1?.status, i1?.answeredBy, i1?.pending]).toEqual(['resolved', OTHER, null]);
    expect(hitl.getState().record.answers).toEqual([]);
    expect(chat.getState().outbox).toEqual([]);
    expect(server.count('start')).toBe(1);
  });
});
