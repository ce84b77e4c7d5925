import { describe, expect, it } from 'vitest';
import { postRun, prompt, STORES, waitFor } from '../helpers.js';
import { useStoreServer, within } from './util.js';

/**
 * A delete on another instance removes a thread whose run this instance still produces
 * once it has waited its bound for the run to end. The run's next append then names a run
 * that is gone: that is no outage to wait out (before, the run held its events and retried
 * for `storeOutageMs`, then tried to end a run that no longer exists, holding its slot).
 */
describe.each(STORES)('abuse: a running run removed from the store ($name)', ({ create }) => {
  const ctx = useStoreServer(create);

  it('stops at its next append, at once, and says why once', async () => {
    const { json: run } = await postRun(
      ctx.server.url,
      prompt('slow', { tokens: 400, tokensPerSecond: 40 }),
    );
    const { store, manager } = ctx.server;
    await waitFor(async () => ((await store.getRun(run.runId))?.lastOffset ?? 0) >= 3);
    await store.threadEdits.remove(run.threadId);
    expect(await within(manager.waitForRun(run.runId), 3000)).toBeUndefined();
    expect(manager.activeRunCount).toBe(0);
    expect(ctx.logged).toEqual([
      `run ${run.runId}: could not store events, stopping it: ResumableError: no run ${run.runId}`,
    ]);
    expect(await store.getRun(run.runId)).toBeNull();
  });
});
