import { describe, expect, it } from 'vitest';
import { bearer, logOf, postRun, prompt, STORES } from '../helpers.js';
import { useStoreServer, within } from './util.js';

const FAST = { tokens: 1, tokensPerSecond: 0 };

/**
 * Ids may contain `:`. In the Redis store, thread `team:events` had the key of thread
 * `team`'s event stream: whoever made the second one broke both (WRONGTYPE, runs that
 * never ended, a delete that hung), and deleting one deleted the other's record.
 *
 * Only the Redis store composes keys from ids, so only there can this fail today. The
 * memory store keys its Maps by whole ids and SQLite compares whole column values
 * (`thread_id = ?`, never `LIKE`), so `team` and `team:events` cannot meet there; on them
 * this is the same contract kept for a change that would compose keys or prefixes (a
 * key-value cache, a `LIKE 'team%'` delete), not a test of anything they do now.
 */
describe.each(STORES)('abuse: ids that are another id plus a key suffix ($name)', ({ create }) => {
  const ctx = useStoreServer(create);

  it('thread team:events and thread team live side by side; deleting one leaves the other', async () => {
    const { json: victim } = await postRun(ctx.server.url, {
      ...prompt('victim', FAST),
      threadId: 'team:events',
    });
    const victimLog = await logOf(ctx.server, victim.runId, victim.token);
    const attacker = await postRun(ctx.server.url, {
      ...prompt('attacker', FAST),
      threadId: 'team',
    });
    expect(attacker.status).toBe(201);
    expect(await within(ctx.server.manager.waitForRun(attacker.json.runId), 5000)).toBeUndefined();
    for (const suffix of ['runs', 'history', 'messages', 'interrupts', 'files']) {
      const other = await postRun(ctx.server.url, {
        ...prompt(suffix, FAST),
        threadId: `team:${suffix}`,
      });
      expect([suffix, other.status]).toEqual([suffix, 201]);
      await ctx.server.manager.waitForRun(other.json.runId);
    }
    const deleted = await within(
      fetch(`${ctx.server.url}/threads/team`, {
        method: 'DELETE',
        headers: bearer(attacker.json.token),
      }).then((r) => r.status),
      5000,
    );
    expect(deleted).toBe(204);
    const thread = await fetch(`${ctx.server.url}/threads/team:events`, {
      headers: bearer(victim.token),
    });
    expect(thread.status).toBe(200);
    const body = (await thread.json()) as { runs: Array<{ runId: string; status: string }> };
    expect(body.runs.map((r) => [r.runId, r.status])).toEqual([[victim.runId, 'finished']]);
    expect(await logOf(ctx.server, victim.runId, victim.token)).toEqual(victimLog);
    expect(ctx.logged).toEqual([]);
  });
});
