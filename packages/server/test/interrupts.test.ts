import { EventType } from '@resumable/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent, RunningServer } from '../src/index.js';
import { startServer } from '../src/index.js';
import { bearer, logOf, postRun, prompt } from './helpers.js';
import {
  answer,
  approved,
  asked,
  expectAnswered,
  FAST,
  getJson,
  replyOf,
  rid,
} from './interrupt-helpers.js';

describe('human in the loop (memory store)', () => {
  let server: RunningServer;
  afterEach(async () => {
    await server?.close();
  });

  it('an approval leaves the thread waiting; the first answer wins, a second gets 409 naming it, a retry gets the same run', async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const interrupt = {
      id: t.interruptId,
      reason: 'tool_approval',
      toolCallId: t.toolCallId,
      message: 'Delete notes/old-draft.md?',
      runId: t.runId,
    };
    const run = await getJson(`${server.url}/runs/${t.runId}`, t.token);
    expect(run.status).toBe('finished');
    expect(run.outcome).toEqual({
      type: 'interrupt',
      interrupts: [
        {
          id: t.interruptId,
          reason: 'tool_approval',
          toolCallId: t.toolCallId,
          message: 'Delete notes/old-draft.md?',
        },
      ],
    });
    expect(run.interrupts).toEqual([{ ...interrupt, status: 'open' }]);
    const thread = await getJson(`${server.url}/threads/${t.threadId}`, t.token);
    expect(thread.waiting).toBe(true);
    expect(thread.interrupts).toEqual([{ ...interrupt, status: 'open' }]);

    const first = rid();
    const won = await answer(server, t, approved(t.interruptId), first);
    expect(won.status).toBe(201);
    expect(won.json).toEqual({ runId: first, threadId: t.threadId, token: t.token });
    expect(await replyOf(server, first, t.token)).toBe('Approved: I deleted notes/old-draft.md.');
    const log = await logOf(server, first, t.token);
    expect(log.find((e) => e.type === 'TOOL_CALL_RESULT')).toEqual({
      type: 'TOOL_CALL_RESULT',
      messageId: `tool-${first}-0`,
      toolCallId: t.toolCallId,
      role: 'tool',
      content: '{"deleted":"notes/old-draft.md"}',
    });

    const second = await answer(server, t, [
      { interruptId: t.interruptId, status: 'resolved', payload: { approved: false } },
    ]);
    expectAnswered(second, t.interruptId, first);
    const retry = await answer(server, t, approved(t.interruptId), first);
    expect(retry.status).toBe(200);
    expect(retry.json).toEqual({ runId: first, threadId: t.threadId, token: t.token });

    const after = {
      ...interrupt,
      status: 'resolved',
      answeredBy: first,
      payload: { approved: true },
    };
    expect((await getJson(`${server.url}/runs/${t.runId}`, t.token)).interrupts).toEqual([after]);
    const thread2 = await getJson(`${server.url}/threads/${t.threadId}`, t.token);
    expect(thread2.waiting).toBe(false);
    expect(thread2.interrupts).toEqual([after]);
    expect((thread2.runs as Array<{ runId: string }>).map((r) => r.runId)).toEqual([
      first,
      t.runId,
    ]);
  });

  it('two answers at once: exactly one continuation run, the other 409 names it', async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const answers = await Promise.all([
      answer(server, t, approved(t.interruptId)),
      answer(server, t, [
        {
          interruptId: t.interruptId,
          status: 'resolved',
          payload: { approved: false, reason: 'no' },
        },
      ]),
      answer(server, t, approved(t.interruptId)),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
    const winner = answers.find((a) => a.status === 201)!.json.runId;
    for (const lost of answers.filter((a) => a.status === 409)) {
      expectAnswered(lost, t.interruptId, winner);
    }
    await server.manager.waitForRun(winner);
    const thread = await getJson(`${server.url}/threads/${t.threadId}`, t.token);
    expect((thread.runs as Array<{ runId: string }>).map((r) => r.runId)).toEqual([
      winner,
      t.runId,
    ]);
  });

  it('deny: the agent says it did not run the tool, with the reason', async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const denied = await answer(server, t, [
      {
        interruptId: t.interruptId,
        status: 'resolved',
        payload: { approved: false, reason: 'keep it' },
      },
    ]);
    expect(denied.status).toBe(201);
    expect(await replyOf(server, denied.json.runId, t.token)).toBe(
      'I did not delete notes/old-draft.md: you denied it (keep it).',
    );
    // Another device sees the answer itself, not only that there was one.
    const run = await getJson(`${server.url}/runs/${t.runId}`, t.token);
    expect((run.interrupts as Array<{ payload: unknown }>)[0]!.payload).toEqual({
      approved: false,
      reason: 'keep it',
    });
  });

  it('a new prompt while an interrupt is open cancels it (recorded) and the agent gets the cancellation', async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const next = rid();
    const sent = await postRun(
      server.url,
      { threadId: t.threadId, runId: next, ...prompt('something else', FAST, 'u2') },
      bearer(t.token),
    );
    expect(sent.status).toBe(201);
    const reply = await replyOf(server, next, t.token);
    expect(
      reply.startsWith(
        'I did not delete notes/old-draft.md: the request was cancelled.## Answer to: something else',
      ),
    ).toBe(true);
    const run = await getJson(`${server.url}/runs/${t.runId}`, t.token);
    expect(run.interrupts).toEqual([
      {
        id: t.interruptId,
        reason: 'tool_approval',
        toolCallId: t.toolCallId,
        message: 'Delete notes/old-draft.md?',
        runId: t.runId,
        status: 'cancelled',
        answeredBy: next,
      },
    ]);
    const late = await answer(server, t, approved(t.interruptId));
    expectAnswered(late, t.interruptId, next);
  });

  it('an agent that reuses an interrupt id in every run: each run asks its own', async () => {
    const asks: Agent = async function* (input) {
      yield {
        type: EventType.RUN_FINISHED,
        threadId: input.threadId,
        runId: input.runId,
        outcome: { type: 'interrupt', interrupts: [{ id: 'same', reason: 'question' }] },
      };
    };
    server = await startServer({ port: 0, agent: asks });
    const first = await postRun(server.url, prompt('ask me'));
    const again = [{ interruptId: 'same', status: 'resolved', payload: { answer: 'a' } }];
    const second = await answer(server, first.json, again);
    expect(second.status).toBe(201);
    await server.manager.waitForRun(second.json.runId);
    // The continuation asked 'same' anew: open, answerable once more.
    const third = await answer(server, first.json, again);
    expect(third.status).toBe(201);
    await server.manager.waitForRun(third.json.runId);
    const thread = await getJson(`${server.url}/threads/${first.json.threadId}`, first.json.token);
    expect(thread.interrupts).toEqual([
      { id: 'same', reason: 'question', runId: third.json.runId, status: 'open' },
    ]);
    // Each run's 'same' keeps its own answer.
    const answeredBy = async (runId: string) => {
      const run = await getJson(`${server.url}/runs/${runId}`, first.json.token);
      return (run.interrupts as Array<{ answeredBy?: string }>)[0]!.answeredBy;
    };
    expect(await answeredBy(first.json.runId)).toBe(second.json.runId);
    expect(await answeredBy(second.json.runId)).toBe(third.json.runId);
    expect(await answeredBy(third.json.runId)).toBe(undefined);
  });

  it('bad resume entries are 400 before anything is stored', async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const cases: Array<[unknown, string]> = [
      [{}, 'resume must be an array of {interruptId, status, payload?}'],
      [[42], 'resume[0] must be an object {interruptId, status, payload?}'],
      [
        [{ interruptId: 'a/b', status: 'resolved' }],
        'resume[0].interruptId must be 1-200 characters of A-Z a-z 0-9 . _ : -',
      ],
      [
        [{ interruptId: t.interruptId, status: 'approved' }],
        'resume[0].status must be "resolved" or "cancelled"',
      ],
      [
        [
          { interruptId: t.interruptId, status: 'resolved' },
          { interruptId: t.interruptId, status: 'cancelled' },
        ],
        `resume[1] answers interrupt ${t.interruptId} a second time`,
      ],
      [
        [{ interruptId: t.interruptId, status: 'resolved', payload: 'x'.repeat(16 * 1024) }],
        'resume[0].payload is 16386 bytes of JSON, over the limit of 16384',
      ],
      [
        Array.from({ length: 101 }, (_, i) => ({ interruptId: `i${i}`, status: 'cancelled' })),
        'resume has 101 entries, over the limit of 100',
      ],
      [
        [
          { interruptId: t.interruptId, status: 'resolved' },
          { interruptId: 'other', status: 'cancelled' },
        ],
        `resume answers interrupt other, which is not open on thread ${t.threadId}`,
      ],
      [
        [],
        `resume must answer every open interrupt of thread ${t.threadId}; unanswered: ${t.interruptId}`,
      ],
    ];
    for (const [resume, message] of cases) {
      const refused = await answer(server, t, resume);
      expect({ status: refused.status, body: refused.json }).toEqual({
        status: 400,
        body: { error: { code: 'bad_request', message } },
      });
    }
    // A resume on a new thread names nothing open, and leaves no thread behind.
    const fresh = await postRun(server.url, { messages: [], resume: approved('nope') });
    expect(fresh.status).toBe(400);
    expect((fresh.json as unknown as { error: { message: string } }).error.message).toMatch(
      /^resume answers interrupt nope, which is not open on thread [0-9a-f-]{36}$/,
    );
    // Still open, still answerable once.
    const thread = await getJson(`${server.url}/threads/${t.threadId}`, t.token);
    expect(thread.waiting).toBe(true);
    expect((thread.runs as unknown[]).length).toBe(1);
    expect((await answer(server, t, approved(t.interruptId))).status).toBe(201);
  });

  it("an answer whose payload is not the shape its reason takes is 400 before the 201 (an agent had thrown on `'result' in 42`)", async () => {
    server = await startServer({ port: 0 });
    const t = await asked(server);
    const approval =
      'for a tool_approval interrupt must be {approved: true} or {approved: false, reason?: "<text>"}';
    for (const payload of [
      42,
      null,
      [true],
      'yes',
      {},
      { approved: 'yes' },
      { approved: false, reason: 7 },
    ]) {
      const refused = await answer(server, t, [
        { interruptId: t.interruptId, status: 'resolved', payload },
      ]);
      expect({ status: refused.status, body: refused.json }).toEqual({
        status: 400,
        body: { error: { code: 'bad_request', message: `resume[0].payload ${approval}` } },
      });
    }
    const tools = [{ name: 'get_location', description: 'Where the browser is' }];
    const c = await postRun(server.url, {
      ...prompt('where am I', { ...FAST, interrupt: 'client_tool' }),
      tools,
    });
    await server.manager.waitForRun(c.json.runId);
    const toolAnswer = (payload: unknown) =>
      answer(server, c.json, [
        { interruptId: `tool-${c.json.runId}`, status: 'resolved', payload },
      ]);
    for (const payload of [42, { error: 7 }, { value: 1 }]) {
      const refused = await toolAnswer(payload);
      expect({ status: refused.status, body: refused.json }).toEqual({
        status: 400,
        body: {
          error: {
            code: 'bad_request',
            message:
              'resume[0].payload for a client_tool interrupt must be {result: <JSON>} or {error: "<text>"}',
          },
        },
      });
    }
    // Nothing was recorded: still open, and the right shape is answered once.
    const ok = await toolAnswer({ result: null });
    expect(ok.status).toBe(201);
    expect(await replyOf(server, ok.json.runId, c.json.token)).toBe(
      'The page ran get_location and returned null.',
    );
    expect((await answer(server, t, approved(t.interruptId))).status).toBe(201);
  });

  it('a script option the server cannot honour is a 400', async () => {
    server = await startServer({ port: 0 });
    const bad = await postRun(server.url, prompt('x', { interrupt: 'coffee' }));
    expect(bad.json).toEqual({
      error: {
        code: 'bad_request',
        message: 'script.interrupt must be one of tool_approval, question, client_tool',
      },
    });
    const noTool = await postRun(server.url, prompt('x', { interrupt: 'client_tool' }));
    expect(noTool.json).toEqual({
      error: {
        code: 'bad_request',
        message: 'script.interrupt "client_tool" needs a tool the client declared in tools',
      },
    });
  });

  it('the showcase reply asks for approval when the prompt says "delete" (the demo), else answers', async () => {
    server = await startServer({ port: 0 });
    const demo = { reply: 'demo', tokensPerSecond: 0 };
    const asked = await postRun(server.url, prompt('Please DELETE the old draft', demo));
    const log = await logOf(server, asked.json.runId, asked.json.token);
    expect((log.at(-1) as { outcome: { type: string } }).outcome.type).toBe('interrupt');
    expect(log.find((e) => e.type === 'TOOL_CALL_START')?.toolCallName).toBe('delete_file');
    const plain = await postRun(server.url, prompt('How does it survive a reload?', demo));
    const other = await logOf(server, plain.json.runId, plain.json.token);
    expect(other.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('a question and a browser-side tool: the continuation uses the answer', async () => {
    server = await startServer({ port: 0 });
    const q = await postRun(
      server.url,
      prompt('write a report', { ...FAST, interrupt: 'question' }),
    );
    await server.manager.waitForRun(q.json.runId);
    const qId = `question-${q.json.runId}`;
    const run = await getJson(`${server.url}/runs/${q.json.runId}`, q.json.token);
    expect(run.interrupts).toEqual([
      {
        id: qId,
        reason: 'question',
        message: 'What should I call the report?',
        responseSchema: { type: 'string', maxLength: 200 },
        runId: q.json.runId,
        status: 'open',
      },
    ]);
    const a = await answer(server, q.json, [
      { interruptId: qId, status: 'resolved', payload: { answer: 'Q3' } },
    ]);
    expect(await replyOf(server, a.json.runId, q.json.token)).toBe(
      'Thanks: I will call the report "Q3".',
    );

    const tools = [{ name: 'get_location', description: 'Where the browser is' }];
    const c = await postRun(server.url, {
      ...prompt('where am I', { ...FAST, interrupt: 'client_tool' }),
      tools,
    });
    expect(c.status).toBe(201);
    const log = await logOf(server, c.json.runId, c.json.token);
    expect(log.find((e) => e.type === 'TOOL_CALL_START')?.toolCallName).toBe('get_location');
    expect((log.at(-1) as { outcome: unknown }).outcome).toEqual({
      type: 'interrupt',
      interrupts: [
        {
          id: `tool-${c.json.runId}`,
          reason: 'client_tool',
          toolCallId: `call-${c.json.runId}`,
          message: 'Run get_location in the page',
        },
      ],
    });
    // The continuation carries the same script (as the hooks send it) and no tools: fine.
    const done = await postRun(
      server.url,
      {
        threadId: c.json.threadId,
        messages: [],
        forwardedProps: { script: { ...FAST, interrupt: 'client_tool' } },
        resume: [
          {
            interruptId: `tool-${c.json.runId}`,
            status: 'resolved',
            payload: { result: { city: 'Oslo' } },
          },
        ],
      },
      bearer(c.json.token),
    );
    expect(done.status).toBe(201);
    expect(await replyOf(server, done.json.runId, c.json.token)).toBe(
      'The page ran get_location and returned {"city":"Oslo"}.',
    );
  });
});
