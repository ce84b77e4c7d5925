import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { bearer, logOf, postRun, prompt, STORES, tempDir } from '../helpers.js';

const FAST = { tokens: 1, tokensPerSecond: 0 };

/** Resolves `promise`, or the string 'timeout' after `ms`. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);

/**
 * Ids may contain `:`. In the Redis store, thread `team:events` had the key of thread
 * `team`'s event stream: whoever made the second one broke both (WRONGTYPE, runs that
 * never ended, a delete that hung), and deleting one deleted the other's record.
 */
describe.each(STORES)('abuse: ids that are another id plus a key suffix ($name)', ({ create }) => {
  const dir = tempDir();
  let server: RunningServer;
  const logged: string[] = [];
  beforeAll(async () => {
    server = await startServer({ port: 0, store: create(dir.path), log: (m) => logged.push(m) });
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  it('thread team:events and thread team live side by side; deleting one leaves the other', async () => {
    const { json: victim } = await postRun(server.url, {
      ...prompt('victim', FAST),
      threadId: 'team:events',
    });
    const victimLog = await logOf(server, victim.runId, victim.token);
    const attacker = await postRun(server.url, { ...prompt('attacker', FAST), threadId: 'team' });
    expect(attacker.status).toBe(201);
    expect(await within(server.manager.waitForRun(attacker.json.runId), 5000)).toBeUndefined();
    for (const suffix of ['runs', 'history', 'messages', 'interrupts', 'files']) {
      const other = await postRun(server.url, {
        ...prompt(suffix, FAST),
        threadId: `team:${suffix}`,
      });
      expect([suffix, other.status]).toEqual([suffix, 201]);
      await server.manager.waitForRun(other.json.runId);
    }
    const deleted = await within(
      fetch(`${server.url}/threads/team`, {
        method: 'DELETE',
        headers: bearer(attacker.json.token),
      }).then((r) => r.status),
      5000,
    );
    expect(deleted).toBe(204);
    const thread = await fetch(`${server.url}/threads/team:events`, {
      headers: bearer(victim.token),
    });
    expect(thread.status).toBe(200);
    const body = (await thread.json()) as { runs: Array<{ runId: string; status: string }> };
    expect(body.runs.map((r) => [r.runId, r.status])).toEqual([[victim.runId, 'finished']]);
    expect(await logOf(server, victim.runId, victim.token)).toEqual(victimLog);
    expect(logged).toEqual([]);
  });
});
