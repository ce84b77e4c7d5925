import { type AGUIEvent, EventType, ResumableError } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type Agent, MemoryStore, type RunningServer, startServer } from '../src/index.js';
import { bearer, follow, postRun, prompt, readEvents, waitFor } from './helpers.js';

/** A memory store whose appends throw `store_unavailable` while `down` is true. */
function flakyStore() {
  const store = new MemoryStore();
  const state = { down: false, failures: 0, lostReplies: 0 };
  const append = store.append.bind(store);
  store.append = async (...args) => {
    if (state.lostReplies > 0) {
      // Stored, but the answer never reaches the server (a connection cut mid-reply).
      state.lostReplies--;
      await append(...args);
      throw new ResumableError('store_unavailable', 'the reply was lost');
    }
    if (state.down) {
      state.failures++;
      throw new ResumableError('store_unavailable', 'the test store is down');
    }
    return append(...args);
  };
  return { store, state };
}

/** Starts a message, waits for `gate`, sends one delta, then waits for `hang` (if given). */
function gatedAgent(gate: Promise<void>, hang?: Promise<void>): Agent {
  return async function* () {
    yield { type: EventType.TEXT_MESSAGE_START, messageId: 'm1', role: 'assistant' } as AGUIEvent;
    await gate;
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm1', delta: 'kept' } as AGUIEvent;
    if (hang) await hang;
  };
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * Store failures on a single-instance store: a blip loses nothing (events wait in memory
 * and are appended in order when the store is back); past the outage budget the run stops
 * and ends `store_unavailable`, stored after everything live readers already got.
 */
describe('a store that fails under a run', () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('a blip: the run goes on, its log is stored whole and in order when the store is back', async () => {
    const { store, state } = flakyStore();
    const go = gate();
    const logs: string[] = [];
    const server = await startServer({
      port: 0,
      store,
      agent: gatedAgent(go.promise),
      log: (m) => logs.push(m),
    });
    servers.push(server);
    const { json: run } = await postRun(server.url, prompt('blip'));
    await waitFor(async () => (await store.getRun(run.runId))?.lastOffset === 2);
    const live = follow(`${server.url}/runs/${run.runId}/events`, { headers: bearer(run.token) });
    await waitFor(() => server.manager.subscriberCount(run.runId) === 1);

    // The first append of the outage lands but its reply is lost; the rest fail.
    state.lostReplies = 1;
    state.down = true;
    go.open();
    // The live reader gets the delta while the store is down (offset 3, final).
    await waitFor(() => live.frames.length === 3);
    expect(JSON.parse(live.frames[2]!.json)).toEqual({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: 'm1',
      delta: 'kept',
    });
    await waitFor(() => state.failures >= 3);
    // The lost reply's append landed, terminal included; the server does not know yet, so
    // it publishes no end it has not seen stored.
    expect((await store.getRun(run.runId))?.lastOffset).toBe(4);
    expect(live.frames).toHaveLength(3);
    state.down = false;

    const expected = [
      [1, { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId }],
      [2, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }],
      [3, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'kept' }],
      [
        4,
        {
          type: 'RUN_FINISHED',
          threadId: run.threadId,
          runId: run.runId,
          outcome: { type: 'success' },
        },
      ],
    ];
    expect((await live.done).map((f) => [f.offset, JSON.parse(f.json)])).toEqual(expected);
    const stored = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(stored.frames.map((f) => [f.offset, JSON.parse(f.json)])).toEqual(expected);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'finished', lastOffset: 4 });
    expect(logs.filter((m) => m.includes('holding its events in memory'))).toHaveLength(1);
  });

  it('past the outage budget: the run ends store_unavailable after what readers already got', async () => {
    const { store, state } = flakyStore();
    const go = gate();
    const never = gate();
    const server = await startServer({
      port: 0,
      store,
      agent: gatedAgent(go.promise, never.promise),
      limits: { storeOutageMs: 200 },
      log: () => {},
    });
    servers.push(server);
    const { json: run } = await postRun(server.url, prompt('long outage'));
    await waitFor(async () => (await store.getRun(run.runId))?.lastOffset === 2);
    const live = follow(`${server.url}/runs/${run.runId}/events`, { headers: bearer(run.token) });
    await waitFor(() => server.manager.subscriberCount(run.runId) === 1);

    state.down = true;
    go.open();
    // Over the budget (200 ms, with the retry steps 50/250/1000 ms): the run is ended.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await store.getRun(run.runId))?.status).toBe('running');
    state.down = false;

    const expected = [
      [1, { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId }],
      [2, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }],
      [3, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'kept' }],
      [
        4,
        {
          type: 'RUN_ERROR',
          message: 'the store was unavailable for over 200 ms',
          code: 'store_unavailable',
        },
      ],
    ];
    expect((await live.done).map((f) => [f.offset, JSON.parse(f.json)])).toEqual(expected);
    const stored = await readEvents(`${server.url}/runs/${run.runId}/events`, {
      headers: bearer(run.token),
    });
    expect(stored.frames.map((f) => [f.offset, JSON.parse(f.json)])).toEqual(expected);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'error', lastOffset: 4 });
    expect(server.manager.activeRunCount).toBe(0);
  });
});
