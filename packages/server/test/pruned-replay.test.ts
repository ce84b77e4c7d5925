import { afterAll, describe, expect, it } from 'vitest';
import { bearer, postRun, prompt, STORES, serve, tempDir } from './helpers.js';

/** 296 deltas + RUN_STARTED, TEXT_MESSAGE_START, TEXT_MESSAGE_END, RUN_FINISHED = 300 events. */
const TOKENS = 296;
/** A replay reads the store in pages of 256 events (subscription.ts PAGE_EVENTS). */
const PAGE = 256;
/** Empty reads after which the store wrapper throws, so a spinning replay cannot hang the run. */
const SPIN_GUARD = 1000;

describe.each(STORES)(
  'a replay whose events retention prunes, on the $name store',
  ({ create }) => {
    const dir = tempDir();
    afterAll(() => dir.cleanup());

    it('ends its body instead of spinning, and the server keeps answering', async () => {
      const server = await serve(create, dir.path, { retention: { eventsHours: 0 } });
      try {
        const { json: run } = await postRun(
          server.url,
          prompt('prune me', { tokens: TOKENS, tokensPerSecond: 0 }),
        );
        await server.manager.waitForRun(run.runId);
        const record = (await server.store.getRun(run.runId))!;
        expect(record.status).toBe('finished');
        expect(record.lastOffset).toBe(300);

        // Count the store reads that come back empty once the events are gone.
        const store = server.store;
        const read = store.readEvents.bind(store);
        let pruned = false;
        let emptyReads = 0;
        store.readEvents = async (runId, after, limit) => {
          const events = await read(runId, after, limit);
          if (pruned && events.length === 0 && ++emptyReads >= SPIN_GUARD) {
            throw new Error('the replay keeps reading an empty log');
          }
          return events;
        };

        // A replay of the ended run, paused after its first page (the client reads nothing).
        const open = await server.manager.openStream(record, 0);
        if (open.kind !== 'stream') throw new Error(`expected a stream, got ${open.kind}`);
        const reader = open.subscription.stream.getReader();
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(open.subscription.cursor).toBe(PAGE);

        await new Promise((resolve) => setTimeout(resolve, 5));
        await server.manager.pruneExpiredEvents();
        pruned = true;
        expect((await server.store.getRun(run.runId))!.eventsPruned).toBe(true);

        // The client takes the first page; the replay then finds nothing left to send.
        const first = await reader.read();
        expect(first.done).toBe(false);
        const text = new TextDecoder().decode(first.value);
        expect(text.match(/^id: /gm)).toHaveLength(PAGE);
        expect(await reader.read()).toEqual({ done: true, value: undefined });
        expect(emptyReads).toBe(1);
        expect(open.subscription.isClosed).toBe(true);
        expect(server.manager.subscriberCount(run.runId)).toBe(0);

        // Another request is answered, and the client's reconnect gets 410.
        const headers = bearer(run.token);
        const status = await fetch(`${server.url}/runs/${run.runId}`, { headers });
        expect(status.status).toBe(200);
        expect(((await status.json()) as { lastOffset: number }).lastOffset).toBe(300);
        const again = await fetch(`${server.url}/runs/${run.runId}/events?after=${PAGE}`, {
          headers,
        });
        expect(again.status).toBe(410);
        expect(((await again.json()) as { error: { code: string } }).error.code).toBe(
          'offset_expired',
        );
      } finally {
        await server.close();
      }
    });
  },
);
