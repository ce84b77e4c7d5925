/**
 * The interrupts' own record (`interrupts:<key>`) and answers against the server's rules
 * for `resume` (issue #10): a stored answer the server would refuse, or an answer given
 * over its limits, ends in a typed error and leaves the interrupt answerable — never a
 * continuation refused on every reload, an interrupt stuck `queued`, or a retry loop.
 */

import { parseResume, ResumableError } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { HostileServer, RUN, storedChat, THREAD, TOKEN } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';
import { waitFor } from './util.js';

const FAST = {
  backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
  heartbeatMs: 100,
  requestTimeoutMs: 2000,
  maxAttemptsWithoutProgress: 5,
  stableAfterMs: 1000,
};
const BOUND_MS = 3000;
/** A continuation's run id, chosen before a reload. */
const QUEUED_RUN = 'run-queued-0123456789abcdef';

let server: HostileServer;
trackRejections();
const stops: (() => void)[] = [];
/** `resume` of each `POST /runs`, in order. */
let resumes: unknown[] = [];

beforeEach(async () => {
  server = await new HostileServer().start();
  resumes = [];
  // The thread has interrupts `ids` open, asked by RUN; a resume is refused as the real
  // server refuses it (`parseResume`: 400 bad_request).
  open(['i1']);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await server.close();
});

function open(ids: string[]): void {
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') {
      const interrupts = ids.map((id) => ({ id, reason: 'question', runId: RUN, status: 'open' }));
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    if (hit.route !== 'start') return false;
    const body = JSON.parse((req as { body?: string }).body ?? '{}') as { resume?: unknown };
    resumes.push(body.resume);
    try {
      parseResume(body.resume);
    } catch {
      return server.error(res, 400, 'bad_request');
    }
    // As the real server: a resume answers every open interrupt of the thread.
    const given = new Set(
      (body.resume as { interruptId: string }[] | undefined)?.map((e) => e.interruptId),
    );
    const missing = ids.filter((id) => !given.has(id));
    if (body.resume !== undefined && missing.length > 0) {
      const message = `resume must answer every open interrupt of thread ${THREAD}; unanswered: ${missing.join(', ')}`;
      return server.json(res, 400, { error: { code: 'bad_request', message } });
    }
    return false;
  };
}

/** The interrupts of chat `c` of THREAD over `storage`; its warnings, in order. */
function interruptsOver(storage: RecordStorage) {
  const warnings: ResumableError[] = [];
  const client = new ResumableClient({
    ...FAST,
    endpoint: server.url,
    storage,
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
  const chat = client.chatSession('c', {
    threadId: THREAD,
    token: TOKEN,
    followThread: false,
    shareTabs: false,
  });
  const hitl = new InterruptSession(chat, (w) => warnings.push(w));
  stops.push(hitl.retain());
  return { chat, hitl, warnings };
}

/** A storage holding chat `c` and its interrupts' record with `answers`. */
async function storedAnswers(answers: object[], ids = ['i1']): Promise<RecordStorage> {
  const storage = await storedChat({ outbox: [] });
  const known = ids.map((id) => ({ id, reason: 'question', runId: RUN }));
  await storage.update(interruptRecordKey('c'), () => ({
    v: 1,
    key: 'c',
    known,
    answers,
    tools: [],
  }));
  return storage;
}

const big = 'x'.repeat(17 * 1024);
const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
const view = (hitl: InterruptSession) =>
  hitl.getState().interrupts.map((i) => `${i.id} ${i.status} ${i.pending}`);
/** Lets the session read the server's statuses and queue again what it would. */
const settle = (hitl: InterruptSession, chat: { getState(): { hydrated: boolean } }) =>
  waitFor(
    () => hitl.getState().server.length > 0 && chat.getState().hydrated,
    'statuses read',
    BOUND_MS,
  ).then(() => new Promise((r) => setTimeout(r, 150)));

describe('a stored answer the server would refuse', () => {
  const cases: [string, object, string][] = [
    [
      'a queued answer of 17 KiB',
      { interruptId: 'i1', status: 'resolved', payload: big, state: 'queued', runId: QUEUED_RUN },
      'persisted answer to interrupt "i1" discarded: resume[0].payload is 17410 bytes of JSON, over the limit of 16384',
    ],
    [
      'a queued answer nested 70 deep',
      {
        interruptId: 'i1',
        status: 'resolved',
        payload: nested(70),
        state: 'queued',
        runId: QUEUED_RUN,
      },
      'persisted answer to interrupt "i1" discarded: resume[0].payload nests deeper than 61 levels',
    ],
    // A queued answer whose continuation runId the server refuses is no longer dropped: it
    // is queued again under a new runId (records-renamed-continuation.test.ts).
    [
      'a draft of 17 KiB',
      { interruptId: 'i1', status: 'resolved', payload: big, state: 'draft', runId: null },
      'persisted answer to interrupt "i1" discarded: resume[0].payload is 17410 bytes of JSON, over the limit of 16384',
    ],
  ];
  for (const [what, answer, message] of cases) {
    it(`${what}: dropped with a corrupt_record warning, never sent; the interrupt is answered again, once`, async () => {
      const { chat, hitl, warnings } = interruptsOver(await storedAnswers([answer]));
      await settle(hitl, chat);
      expect(warnings.map((w) => [w.code, w.message])).toEqual([['corrupt_record', message]]);
      expect(view(hitl)).toEqual(['i1 open null']);
      expect(server.count('start')).toBe(0);
      expect(chat.getState().outbox).toEqual([]);

      await hitl.resolve('i1', { answer: 'short' });
      await waitFor(() => server.count('start') === 1 && !chat.getState().outbox.length, 'sent');
      expect(resumes).toEqual([
        [{ interruptId: 'i1', status: 'resolved', payload: { answer: 'short' } }],
      ]);
      expect(chat.getState().error).toBeNull();
    });
  }

  it('an interrupt id the server refuses: the stored answer is dropped, answering it again is a typed bad_request', async () => {
    open(['i 1']);
    const answer = { interruptId: 'i 1', status: 'cancelled', state: 'queued', runId: QUEUED_RUN };
    const { chat, hitl, warnings } = interruptsOver(await storedAnswers([answer], ['i 1']));
    await settle(hitl, chat);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        'corrupt_record',
        'persisted answer to interrupt "i 1" discarded: resume[0].interruptId must be 1-200 characters of A-Z a-z 0-9 . _ : -',
      ],
    ]);
    const error = await hitl.cancel('i 1').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResumableError);
    expect((error as ResumableError).code).toBe('bad_request');
    expect(view(hitl)).toEqual(['i 1 open null']);
    expect(server.count('start')).toBe(0);
  });

  it('a well-formed queued answer is kept and queued again once (the same run id)', async () => {
    const payload = { answer: nested(50) };
    const answer = {
      interruptId: 'i1',
      status: 'resolved',
      payload,
      state: 'queued',
      runId: QUEUED_RUN,
    };
    const { chat, hitl, warnings } = interruptsOver(await storedAnswers([answer]));
    await waitFor(() => server.count('start') === 1 && !chat.getState().outbox.length, 'sent');
    expect(resumes).toEqual([[{ interruptId: 'i1', status: 'resolved', payload }]]);
    expect(warnings).toEqual([]);
    expect(hitl.getState().record.answers.map((a) => a.runId)).toEqual([QUEUED_RUN]);
  });
});

describe('an answer the server would refuse (its limits, its shape)', () => {
  const cases: [string, unknown, string][] = [
    ['17 KiB of JSON', big, 'resume[0].payload is 17410 bytes of JSON, over the limit of 16384'],
    [
      '9,000 two-byte characters (under 16 K characters, over 16 KiB)',
      'é'.repeat(9000),
      'resume[0].payload is 18002 bytes of JSON, over the limit of 16384',
    ],
    ['nested 70 deep', nested(70), 'resume[0].payload nests deeper than 61 levels'],
    // The server's 400 for a payload not of the question's shape (protocol.md's table).
    ...[42, 'fine', null, [1], { value: 1 }].map((payload): [string, unknown, string] => [
      `a question answered with ${JSON.stringify(payload)}, not {answer}`,
      payload,
      'payload for a question interrupt must be {answer: <string or JSON>}',
    ]),
  ];
  for (const [what, payload, message] of cases) {
    it(`${what}: resolve rejects with bad_request, nothing kept or sent; a good answer then goes once`, async () => {
      const { chat, hitl } = interruptsOver(await storedAnswers([]));
      await settle(hitl, chat);
      const error = await hitl.resolve('i1', payload).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ResumableError);
      expect([(error as ResumableError).code, (error as ResumableError).message]).toEqual([
        'bad_request',
        message,
      ]);
      expect(view(hitl)).toEqual(['i1 open null']);
      expect(hitl.getState().record.answers).toEqual([]);
      await new Promise((r) => setTimeout(r, 100));
      expect(server.count('start')).toBe(0);

      await hitl.resolve('i1', { answer: 'fine' });
      await waitFor(() => server.count('start') === 1 && !chat.getState().outbox.length, 'sent');
      expect(resumes).toEqual([
        [{ interruptId: 'i1', status: 'resolved', payload: { answer: 'fine' } }],
      ]);
    });
  }
});

describe('a continuation the server refuses', () => {
  it("a stored answer to one of two open interrupts: refused once, let go with the server's error; both answered, sent once", async () => {
    open(['i1', 'i2']);
    const answer = { interruptId: 'i1', status: 'cancelled', state: 'queued', runId: QUEUED_RUN };
    const { chat, hitl, warnings } = interruptsOver(await storedAnswers([answer], ['i1', 'i2']));
    await waitFor(() => warnings.length === 1, 'the refusal', BOUND_MS);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      [
        'bad_request',
        `resume must answer every open interrupt of thread ${THREAD}; unanswered: i2`,
      ],
    ]);
    await waitFor(() => chat.getState().outbox.length === 0, 'the refused item gone', BOUND_MS);
    expect(view(hitl)).toEqual(['i1 open null', 'i2 open null']);
    expect(hitl.getState().record.answers).toEqual([]);
    // Not queued again: neither by this page nor after a reload.
    await new Promise((r) => setTimeout(r, 150));
    expect(server.count('start')).toBe(1);
    await chat.run.flush();
    const stored = (await chat.run.storage.get(interruptRecordKey('c'))) as { answers: unknown[] };
    expect(stored.answers).toEqual([]);

    await hitl.cancel('i1');
    await hitl.resolve('i2', { answer: 'yes' });
    await waitFor(() => server.count('start') === 2 && !chat.getState().outbox.length, 'sent');
    expect(resumes.at(-1)).toEqual([
      { interruptId: 'i1', status: 'cancelled' },
      { interruptId: 'i2', status: 'resolved', payload: { answer: 'yes' } },
    ]);
  });
});
