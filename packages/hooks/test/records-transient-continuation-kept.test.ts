/**
 * A continuation that only ever met transient answers (503, 429) reaches `no_progress`
 * after `maxAttemptsWithoutProgress`: like a prompt under the same outage, it stays in the
 * outbox with that error and its answers stay `queued` in the interrupts' record, for
 * `retry()`. Only the server's own refusal (a `stop` from ERROR_ACTIONS) ends a
 * continuation (`refused-continuation.ts`).
 * Real `ChatSession` and `InterruptSession` against a `node:http` server on 127.0.0.1.
 */

import type { ResumableError } from '@resumable/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { BOUND_MS, hostileServerPerTest, MAX_STALE, server } from './hostile-harness.js';
import { RUN, THREAD } from './hostile-server.js';
import { heldInterrupts } from './records-harness.js';
import { waitFor } from './util.js';

hostileServerPerTest();

let outage: { status: number; code: string } = { status: 503, code: 'store_unavailable' };
/** The server back: `POST /runs` answered 201 (its `resume` kept here). */
let up = false;
let resumes: unknown[] = [];
beforeEach(() => {
  up = false;
  resumes = [];
  server.handler = (hit, req, res) => {
    if (hit.route === 'start') resumes.push(JSON.parse((req as { body?: string }).body!).resume);
    if (hit.route === 'thread') {
      const interrupts = [{ id: 'i1', reason: 'question', runId: RUN, status: 'open' }];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    return hit.route === 'start' && !up && server.error(res, outage.status, outage.code);
  };
});

describe('a continuation that meets only transient failures', () => {
  for (const [status, code] of [
    [503, 'store_unavailable'],
    [429, 'too_many_requests'],
  ] as const) {
    it(`${status} ${code} until no_progress: the typed answer is kept for retry(), not dropped`, async () => {
      outage = { status, code };
      const warnings: ResumableError[] = [];
      const { chat, hitl } = await heldInterrupts((w) => warnings.push(w));
      await hitl.resolve('i1', { answer: 'a long typed answer' });
      await waitFor(() => server.count('start') === MAX_STALE, 'the attempts', BOUND_MS);
      await waitFor(() => chat.getState().error !== null, 'given up', BOUND_MS);
      await chat.run.flush();
      expect(chat.getState().error?.code).toBe('no_progress');
      const stored = (await chat.run.storage.get(interruptRecordKey('c'))) as {
        answers: { interruptId: string; payload?: unknown; state: string }[];
      };
      // What a prompt gets under the same outage: still there, for the user's retry().
      expect(stored.answers.map((a) => [a.interruptId, a.payload, a.state])).toEqual([
        ['i1', { answer: 'a long typed answer' }, 'queued'],
      ]);
      expect(chat.getState().outbox.map((o) => [o.resume?.length, o.error?.code])).toEqual([
        [1, 'no_progress'],
      ]);
    });
  }

  it('retry() after no_progress sends the kept answer once the server is back', async () => {
    outage = { status: 503, code: 'store_unavailable' };
    const { chat, hitl } = await heldInterrupts();
    await hitl.resolve('i1', { answer: 'kept' });
    await waitFor(() => chat.getState().error?.code === 'no_progress', 'given up', BOUND_MS);
    up = true;
    chat.retry();
    await waitFor(() => chat.getState().outbox.length === 0, 'sent', BOUND_MS);
    expect(resumes.length).toBe(MAX_STALE + 1);
    expect(resumes.at(-1)).toEqual([
      { interruptId: 'i1', status: 'resolved', payload: { answer: 'kept' } },
    ]);
    expect(chat.getState().error).toBe(null);
  });
});
