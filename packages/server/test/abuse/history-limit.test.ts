import { describe, expect, it } from 'vitest';
import { bearer, postRun, STORES } from '../helpers.js';
import { useStoreServer } from './util.js';

const FAST = { script: { tokens: 1, tokensPerSecond: 0 } };
const users = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `m${from + i}`, role: 'user', content: 'x' }));

/**
 * `limits.maxThreadMessages` bounds a thread's history (each run reads it whole). It was
 * checked against what was stored only: one request with more messages than the limit
 * was answered 201 and its thread held them all (300 of a limit of 100).
 */
describe.each(STORES)('abuse: one request past the history limit ($name)', ({ create }) => {
  const ctx = useStoreServer(create, { limits: { maxThreadMessages: 100 } });

  it('a new thread: 400 before anything is stored', async () => {
    const answer = await postRun(ctx.server.url, {
      threadId: 'history-limit-new',
      messages: users(0, 300),
      forwardedProps: FAST,
    });
    expect([answer.status, answer.json]).toEqual([
      400,
      {
        error: {
          code: 'bad_request',
          message:
            "messages holds 300 prompt messages, over the limit of 100 a thread's history may hold",
        },
      },
    ]);
    expect(await ctx.server.store.getThread('history-limit-new')).toBeNull();
  });

  it('an existing thread: 400 when stored + new would pass it; repeated messages do not count', async () => {
    const { json: run } = await postRun(ctx.server.url, {
      messages: users(0, 60),
      forwardedProps: FAST,
    });
    await ctx.server.manager.waitForRun(run.runId);
    const headers = bearer(run.token);
    const post = (messages: unknown[]) =>
      postRun(ctx.server.url, { threadId: run.threadId, messages, forwardedProps: FAST }, headers);
    const refused = (message: string) => [400, { error: { code: 'bad_request', message } }];
    const over = await post(users(60, 40));
    // 60 prompts + 1 answer stored, 40 new: 101.
    expect([over.status, over.json]).toEqual(
      refused(
        `thread ${run.threadId} would hold 101 messages in its history, over the limit of 100; start a new thread`,
      ),
    );
    const repeated = await post(users(0, 98));
    expect(repeated.status).toBe(201);
    await ctx.server.manager.waitForRun(repeated.json.runId);
    const thread = (await (
      await fetch(`${ctx.server.url}/threads/${run.threadId}`, { headers })
    ).json()) as { runs: unknown[] };
    expect(thread.runs).toHaveLength(2);
    // 100 stored now (98 prompts, 2 answers): full. A run that adds no prompt would still
    // add its answer, so it is refused too (stored + new is 100, not over the limit).
    const full = await post(users(0, 1));
    expect([full.status, full.json]).toEqual(
      refused(
        `thread ${run.threadId} has 100 messages in its history, the limit; start a new thread`,
      ),
    );
  });
});
