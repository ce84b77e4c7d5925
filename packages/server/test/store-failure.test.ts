import { type AGUIEvent, EventType, ResumableError } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type Agent, MemoryStore, startServer } from '../src/index.js';
import { bearer, postRun, prompt, readEvents, waitFor } from './helpers.js';

/**
 * A run whose store appends keep failing on a single-instance store: the manager stops it
 * and keeps retrying its `agent_lost` end until the store takes it, so subscribers are not
 * left polling a `running` run forever.
 */
describe('a run the store fails to save', () => {
  const store = new MemoryStore();
  /** Appends that throw `store_unavailable` before the store works again. */
  let failing = 0;
  let appendCalls = 0;
  const append = store.append.bind(store);
  store.append = async (...args) => {
    appendCalls++;
    if (failing > 0) {
      failing--;
      throw new ResumableError('store_unavailable', 'the test store is down');
    }
    return append(...args);
  };

  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const agent: Agent = async function* () {
    yield { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' } as AGUIEvent;
    await gate;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'lost' } as AGUIEvent;
  };
  const logs: string[] = [];
  const serving = startServer({ port: 0, store, agent, log: (m: string) => logs.push(m) });
  afterAll(async () => (await serving).close());

  it('ends it RUN_ERROR agent_lost once the store works again; streams get that end', async () => {
    const server = await serving;
    const { json: run } = await postRun(server.url, prompt('fail'));
    await waitFor(async () => (await store.getRun(run.runId))?.lastOffset === 2);
    const reading = readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    await waitFor(() => server.manager.subscriberCount(run.runId) === 1);

    // 4 failures exhaust the producer's own retries (1 + 3), 2 more fail the end's first tries.
    const callsBefore = appendCalls;
    failing = 6;
    release();
    await waitFor(async () => (await store.getRun(run.runId))?.status !== 'running', 10_000);
    expect(appendCalls - callsBefore).toBe(7);
    expect(failing).toBe(0);

    const lost = {
      type: 'RUN_ERROR',
      message: 'the server could not store the events of this run',
      code: 'agent_lost',
    };
    const read = await reading;
    expect(read.frames.map((f) => [f.offset, JSON.parse(f.json)])).toEqual([
      [1, { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId }],
      [2, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }],
      [3, lost],
    ]);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'error', lastOffset: 3 });
    expect(logs.filter((m) => m.includes('retrying'))).toHaveLength(2);
  });
});
