/**
 * A continuation (answers to interrupts) the server refuses for good — any code whose action
 * in protocol's ERROR_ACTIONS is `stop`, not only `bad_request` — ends in the outbox's own
 * error path: its answers leave the interrupts' record (the interrupt is open to answer
 * again), the chat shows the server's typed error and the interrupts' `onWarning` hears it,
 * nothing is retried, and a text it carried stays in the outbox as a refused prompt.
 * Real `ChatSession` and `InterruptSession` against a `node:http` server on 127.0.0.1.
 */

import { ERROR_ACTIONS, type ErrorCode, type ResumableError } from '@resumable/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { RUN, storedChat, THREAD } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

/** How the server answers the continuation's POST (null: it takes it). */
let refusal: { status: number; code: string } | null = null;
/** `resume` of each `POST /runs`, in order. */
let resumes: unknown[] = [];
beforeEach(() => {
  resumes = [];
  refusal = null;
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') {
      const interrupts = [{ id: 'i1', reason: 'question', runId: RUN, status: 'open' }];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    if (hit.route !== 'start') return false;
    resumes.push(JSON.parse((req as { body?: string }).body!).resume);
    return refusal !== null && server.error(res, refusal.status, refusal.code);
  };
});

function interruptsOf(storage: RecordStorage) {
  const chat = threadChat(storage);
  const warnings: ResumableError[] = [];
  const hitl = new InterruptSession(chat, (w) => warnings.push(w));
  stops.push(hitl.retain());
  return { chat, hitl, warnings };
}
const view = (hitl: InterruptSession) =>
  hitl.getState().interrupts.map((i) => `${i.id} ${i.status} ${i.pending}`);
const ready = (hitl: InterruptSession, chat: ChatSession) =>
  waitFor(() => hitl.getState().server.length > 0 && chat.getState().hydrated, 'read', BOUND_MS);
const storedAnswers = async (chat: ChatSession) => {
  await chat.run.flush();
  return ((await chat.run.storage.get(interruptRecordKey('c'))) as { answers: unknown[] }).answers;
};

const STOPS: [number, ErrorCode][] = [
  [401, 'unauthorized'],
  [403, 'forbidden'],
  [405, 'method_not_allowed'],
  [413, 'payload_too_large'],
  [415, 'unsupported_media_type'],
];

describe('a continuation refused for good', () => {
  it('the codes tried here are all `stop` in the one table', () => {
    expect(STOPS.map(([, code]) => ERROR_ACTIONS[code])).toEqual(Array(5).fill('stop'));
  });

  for (const [status, code] of STOPS) {
    it(`${status} ${code}: the answer ends, the interrupt is open again with the typed error; answered again, sent once`, async () => {
      const { chat, hitl, warnings } = interruptsOf(await storedChat({ outbox: [] }));
      await ready(hitl, chat);
      refusal = { status, code };
      await hitl.resolve('i1', { answer: 'yes' });
      await waitFor(() => warnings.length === 1, 'the refusal heard', BOUND_MS);
      expect(warnings.map((w) => [w.code, w.message])).toEqual([[code, code]]);
      expect([chat.getState().error?.code, chat.getState().error?.message]).toEqual([code, code]);
      expect(chat.getState().outbox).toEqual([]);
      expect(view(hitl)).toEqual(['i1 open null']);
      expect(hitl.getState().record.answers).toEqual([]);
      expect(await storedAnswers(chat)).toEqual([]);
      await new Promise((r) => setTimeout(r, 150)); // no retry, no requeue
      expect(server.count('start')).toBe(1);

      refusal = null;
      await hitl.resolve('i1', { answer: 'again' });
      await waitFor(() => server.count('start') === 2 && !chat.getState().outbox.length, 'sent');
      expect(resumes).toEqual([
        [{ interruptId: 'i1', status: 'resolved', payload: { answer: 'yes' } }],
        [{ interruptId: 'i1', status: 'resolved', payload: { answer: 'again' } }],
      ]);
      expect(chat.getState().error).toBeNull();
    });
  }

  it('a continuation that carries text: refused (403), its text stays in the outbox as a refused prompt, its answers end', async () => {
    const runId = 'run-queued-0123456789abcdef';
    const resume = [{ interruptId: 'i1', status: 'cancelled' }];
    const storage = await storedChat({
      outbox: [{ runId, text: 'and hello', createdAt: 1, resume }],
    });
    await storage.update(interruptRecordKey('c'), () => ({
      v: 1,
      key: 'c',
      known: [{ id: 'i1', reason: 'question', runId: RUN }],
      answers: [{ interruptId: 'i1', status: 'cancelled', state: 'queued', runId }],
      tools: [],
    }));
    refusal = { status: 403, code: 'forbidden' };
    const { chat, hitl, warnings } = interruptsOf(storage);
    await waitFor(() => warnings.length === 1, 'the refusal heard', BOUND_MS);
    expect(warnings.map((w) => w.code)).toEqual(['forbidden']);
    expect(chat.getState().outbox).toEqual([
      {
        runId,
        text: 'and hello',
        createdAt: 1,
        error: { code: 'forbidden', message: 'forbidden' },
      },
    ]);
    expect(chat.getState().messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'and hello'],
    ]);
    expect(chat.getState().error?.code).toBe('forbidden');
    expect(view(hitl)).toEqual(['i1 open null']);
    expect(await storedAnswers(chat)).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    expect(resumes).toEqual([resume]);
  });
});
