/**
 * A stored continuation whose runId the server would refuse gets a new runId where the chat
 * reads its record (`checked-record.ts`), and the interrupts' record agrees: the answers
 * queued under the old runId follow the item (matched by interrupt id) instead of being
 * dropped, so the interrupt shows `queued`, the continuation goes out once, and its answers
 * are `sent` under the runId that went. Queued answers no item carries, under a runId the
 * server would refuse, are queued again under a new one: nothing lost, nothing sent twice.
 * Real `ChatSession` and `InterruptSession` against a `node:http` server on 127.0.0.1.
 */

import { runIdProblem } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { interruptRecordKey } from '../src/core/interrupts/interrupt-record.js';
import { InterruptSession } from '../src/core/interrupts/interrupt-session.js';
import { BOUND_MS, hostileServerPerTest, server, stops, threadChat } from './hostile-harness.js';
import { RUN, storedChat, THREAD } from './hostile-server.js';
import { waitFor } from './util.js';

hostileServerPerTest();

/** Each `POST /runs`: its runId and resume. */
let posts: { runId: string; resume: unknown }[] = [];
beforeEach(() => {
  posts = [];
  server.handler = (hit, req, res) => {
    if (hit.route === 'thread') {
      // As the real server: open until a continuation answered it.
      const by = posts[0]?.runId;
      const status = by ? 'cancelled' : 'open';
      const interrupts = [
        { id: 'i1', reason: 'question', runId: RUN, status, ...(by ? { answeredBy: by } : {}) },
      ];
      return server.json(res, 200, { threadId: THREAD, runs: [], interrupts });
    }
    if (hit.route !== 'start') return false;
    const body = JSON.parse((req as { body?: string }).body!) as { runId: string; resume: unknown };
    posts.push({ runId: body.runId, resume: body.resume });
    if (runIdProblem(body.runId) !== null) return server.error(res, 400, 'bad_request');
    if (posts.length > 1) return server.error(res, 409, 'interrupt_answered');
    return false;
  };
});

const BAD = 'q1'; // too short: the server refuses it as a runId
const RESUME = [{ interruptId: 'i1', status: 'cancelled' }];
const QUEUED = { interruptId: 'i1', status: 'cancelled', state: 'queued', runId: BAD };

async function over(outbox: object[]) {
  const storage = await storedChat({ outbox });
  await storage.update(interruptRecordKey('c'), () => ({
    v: 1,
    key: 'c',
    known: [{ id: 'i1', reason: 'question', runId: RUN }],
    answers: [QUEUED],
    tools: [],
  }));
  const chat = threadChat(storage);
  const warnings: unknown[] = [];
  const hitl = new InterruptSession(chat, (w) => warnings.push(w));
  stops.push(hitl.retain());
  return { chat, hitl, warnings };
}

/** Sent once, and the answer recorded `sent` under the runId that went out. */
async function sentOnce({ chat, hitl, warnings }: Awaited<ReturnType<typeof over>>) {
  await waitFor(() => posts.length === 1 && !chat.getState().outbox.length, 'sent', BOUND_MS);
  await waitFor(
    () => hitl.getState().record.answers.some((a) => a.state === 'sent'),
    'the answer marked sent',
    BOUND_MS,
  );
  await new Promise((r) => setTimeout(r, 150)); // no second continuation
  expect(posts.map((p) => [runIdProblem(p.runId), p.resume])).toEqual([[null, RESUME]]);
  expect(hitl.getState().record.answers).toEqual([
    { interruptId: 'i1', status: 'cancelled', state: 'sent', runId: posts[0]!.runId },
  ]);
  await chat.run.flush();
  const stored = (await chat.run.storage.get(interruptRecordKey('c'))) as { answers: unknown[] };
  expect(stored.answers).toEqual(hitl.getState().record.answers);
  expect(warnings).toEqual([]);
  expect(chat.getState().error).toBeNull();
}

describe('answers queued under a runId the server would refuse', () => {
  it('the stored continuation is given a new runId: its answers follow it, sent once under it', async () => {
    await sentOnce(await over([{ runId: BAD, text: '', createdAt: 1, resume: RESUME }]));
  });

  describe('while the outbox check fails to load', () => {
    beforeEach(() => {
      vi.doMock('../src/core/chat/stored-outbox.js', () => {
        throw new Error('Failed to fetch dynamically imported module');
      });
    });
    afterEach(() => {
      vi.doUnmock('../src/core/chat/stored-outbox.js');
    });
    it('the answers follow the mended runId all the same', async () => {
      await sentOnce(await over([{ runId: BAD, text: '', createdAt: 1, resume: RESUME }]));
    });
  });

  it('no outbox item carries them (the page went away between two writes): queued again under a new runId, sent once', async () => {
    await sentOnce(await over([]));
  });
});
