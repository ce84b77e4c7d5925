import { type AGUIEvent, EventType, ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/index.js';
import { bearer, logOf, postRun, prompt, STORES } from '../helpers.js';
import { useStoreServer } from './util.js';

/**
 * A custom agent (the `Agent` users write) whose RUN_FINISHED outcome cannot be answered.
 * Before, it was stored as it was, and the interrupt code mapping over it made GET /runs/:id,
 * GET /threads/:id and every later POST /runs on the thread answer 500 for good.
 */
const BAD_OUTCOMES: Array<[string, unknown, string]> = [
  [
    'interrupts not a list',
    { type: 'interrupt', interrupts: 'nope' },
    'outcome.interrupts must be a non-empty array',
  ],
  [
    'an interrupt id used twice',
    {
      type: 'interrupt',
      interrupts: [
        { id: 'same', reason: 'tool_approval' },
        { id: 'same', reason: 'tool_approval' },
      ],
    },
    'outcome.interrupts[1].id "same" is used twice',
  ],
  [
    'an interrupt id outside the wire alphabet',
    { type: 'interrupt', interrupts: [{ id: 'a b', reason: 'tool_approval' }] },
    'outcome.interrupts[0].id must be 1-200 characters of A-Z a-z 0-9 . _ : -',
  ],
  [
    'an unknown outcome type',
    { type: 'paused' },
    'outcome.type must be "success", "interrupt" or "cancelled"',
  ],
];

describe.each(STORES)(
  'abuse: a custom agent ends with an outcome that cannot be answered ($name)',
  ({ create }) => {
    let outcome: unknown;
    const agent: Agent = async function* () {
      yield { type: EventType.TEXT_MESSAGE_START, messageId: 'a1', role: 'assistant' };
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'a1', delta: 'kept' };
      yield { type: EventType.TEXT_MESSAGE_END, messageId: 'a1' };
      yield { type: EventType.RUN_FINISHED, threadId: 't', runId: 'r', outcome } as AGUIEvent;
    };
    const ctx = useStoreServer(create, { agent });

    it.each(BAD_OUTCOMES)(
      '%s: the run ends agent_failed naming it, the text kept, the thread usable',
      async (_, bad, problem) => {
        const { server } = ctx;
        outcome = bad;
        const { status, json: run } = await postRun(server.url, prompt('hi'));
        expect(status).toBe(201);
        expect(await logOf(server, run.runId, run.token)).toEqual([
          { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
          { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
          { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'kept' },
          { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
          {
            type: 'RUN_ERROR',
            code: 'agent_failed',
            message: `the agent sent a RUN_FINISHED that cannot be answered: ${problem}`,
          },
        ]);
        const headers = bearer(run.token);
        const runRead = await fetch(`${server.url}/runs/${run.runId}`, { headers });
        const runView = await runRead.json();
        expect([runRead.status, runView.status, runView.error]).toEqual([
          200,
          'error',
          {
            code: 'agent_failed',
            message: `the agent sent a RUN_FINISHED that cannot be answered: ${problem}`,
          },
        ]);
        const threadRead = await fetch(`${server.url}/threads/${run.threadId}`, { headers });
        expect(threadRead.status).toBe(200);
        outcome = { type: 'success' };
        const next = await postRun(
          server.url,
          { ...prompt('again', undefined, 'u2'), threadId: run.threadId },
          headers,
        );
        expect(next.status).toBe(201);
        expect((await logOf(server, next.json.runId, run.token)).at(-1)).toEqual({
          type: 'RUN_FINISHED',
          threadId: run.threadId,
          runId: next.json.runId,
          outcome: { type: 'success' },
        });
      },
    );
  },
);

/**
 * An agent's own error code goes out only when it is a run outcome (protocol.md: "A
 * RUN_ERROR code is always one of this protocol's"). A client reads `thread_not_found` or
 * `bad_request` as the server's answer about its own request; before, both went out as is.
 */
describe('abuse: an agent ends with an error code that is not a run outcome', () => {
  let end: () => AsyncGenerator<AGUIEvent>;
  const agent: Agent = () => end();
  const ctx = useStoreServer(STORES[0]!.create, { agent });
  const errorOf = async () => {
    const { json: run } = await postRun(ctx.server.url, prompt('hi'));
    return (await logOf(ctx.server, run.runId, run.token)).at(-1);
  };

  it.each([
    [
      'a yielded RUN_ERROR with code thread_not_found',
      { code: 'thread_not_found', message: 'upstream said no' },
      { code: 'agent_failed', message: 'upstream said no (the agent\'s code: "thread_not_found")' },
    ],
    [
      'a yielded RUN_ERROR without a code',
      { message: 'it broke' },
      { code: 'agent_failed', message: 'it broke' },
    ],
    [
      'a yielded RUN_ERROR with a run outcome code',
      { code: 'upstream_failed', message: 'the model answered 502' },
      { code: 'upstream_failed', message: 'the model answered 502' },
    ],
  ])('%s: ends as %j', async (_, yielded, expected) => {
    end = async function* () {
      yield { type: EventType.RUN_ERROR, ...yielded } as AGUIEvent;
    };
    expect(await errorOf()).toEqual({ type: 'RUN_ERROR', ...expected });
  });

  it("a thrown ResumableError('bad_request'): agent_failed, its code in the message", async () => {
    end = async function* () {
      yield* [];
      throw new ResumableError('bad_request', 'nope');
    };
    expect(await errorOf()).toEqual({
      type: 'RUN_ERROR',
      code: 'agent_failed',
      message: 'nope (the agent\'s code: "bad_request")',
    });
  });
});
