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
import { interruptRecordKey } from '../src/core/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupt-session.js';
import {
  BOUND_MS,
  hostileServerPerTest,
  MAX_STALE,
  server,
  stops,
  threadChat,
} from './hostile-harness.js';
import { RUN, storedChat, THREAD } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

let outage: { status: number; code: string } = { status: 503, code: 'store_unavailable' };
beforeEach(() => {
  server.handler = (hit, _req, res) => {
    if (hit.route === 'thread') {
      const interrupts = [{ id: 'i1', reason: 'question', runId: RUN, status: 'open' }];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    return hit.route === 'start' && server.error(res, outage.status, outage.code);
  };
});

describe('a continuation that meets only transient failures', () => {
  for (const [status, code] of [
    [503, 'store_unavailable'],
    [429, 'too_many_requests'],
  ] as const) {
    it(`${status} ${code} until no_progress: the typed answer is kept for retry(), not dropped`, async () => {
      outage = { status, code };
      const chat = threadChat(await storedChat({ outbox: [] }));
      const warnings: ResumableError[] = [];
      const hitl = new InterruptSession(chat, (w) => warnings.push(w));
      stops.push(hitl.retain());
      await waitFor(
        () => hitl.getState().server.length > 0 && chat.getState().hydrated,
        'read',
        BOUND_MS,
      );
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
});
