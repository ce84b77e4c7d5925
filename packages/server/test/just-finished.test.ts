import type { Message } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore, startServer } from '../src/index.js';
import { bearer, postRun, prompt, waitFor } from './helpers.js';

/**
 * A run whose terminal event is stored while its producer is still wrapping up (saving the
 * thread history) is over: a resume from its last offset answers `204`, not an empty `200`.
 */
describe('a run that has just finished', () => {
  const store = new MemoryStore();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The history write after the terminal event (the one carrying the reply) waits.
  const putMessages = store.putMessages.bind(store);
  store.putMessages = async (threadId: string, runId: string, messages: readonly Message[]) => {
    if (messages.some((m) => m.role === 'assistant')) await gate;
    return putMessages(threadId, runId, messages);
  };
  const serving = startServer({ port: 0, store });
  afterAll(async () => {
    release();
    await (await serving).close();
  });

  it('answers 204 to after=lastOffset while its producer is still active', async () => {
    const server = await serving;
    const { json: run } = await postRun(
      server.url,
      prompt('done', { tokens: 2, tokensPerSecond: 0 }),
    );
    await waitFor(async () => (await store.getRun(run.runId))?.status === 'finished');
    expect(server.manager.activeRunCount).toBe(1);
    const { lastOffset } = (await store.getRun(run.runId))!;
    expect(lastOffset).toBe(6);

    const response = await fetch(`${server.url}/runs/${run.runId}/events?after=6`, {
      headers: bearer(run.token),
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(server.manager.subscriberCount(run.runId)).toBe(0);

    release();
    await server.manager.waitForRun(run.runId);
    expect(server.manager.activeRunCount).toBe(0);
  });
});
