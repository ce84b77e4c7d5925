import type { RunSnapshot } from '@resumable/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedLog } from '../expected.js';
import { bearer, type Frame, postRun, prompt, readEvents, types, waitFor } from '../helpers.js';
import { type Instance, startInstance } from './instances.js';
import { testRedisUrl, uniquePrefix } from './shared.js';

/** Short, so a dead instance's runs are closed quickly. */
const LEASE_MS = 1000;
const AGENT_LOST = {
  type: 'RUN_ERROR',
  message: 'the server running this run stopped before it finished',
  code: 'agent_lost',
};

describe('several server processes on one Redis', () => {
  let a: Instance;
  let b: Instance;
  let c: Instance;

  beforeAll(async () => {
    const url = testRedisUrl();
    const prefix = uniquePrefix();
    [a, b, c] = await Promise.all([
      startInstance('A', url, prefix, LEASE_MS),
      startInstance('B', url, prefix, LEASE_MS),
      startInstance('C', url, prefix, LEASE_MS),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a, b, c].map((instance) => instance?.kill('SIGKILL')));
  });

  async function snapshotOn(instance: Instance, runId: string, token: string) {
    const response = await fetch(`${instance.url}/runs/${runId}`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    return (await response.json()) as RunSnapshot;
  }

  it('a run produced on A reads identically through B: from 0, from a middle offset, live and after', async () => {
    const text = 'one log, any instance';
    const started = await postRun(a.url, prompt(text, { tokens: 300, tokensPerSecond: 300 }));
    expect(started.status).toBe(201);
    const { runId, token } = started.json;
    const headers = bearer(token);
    const expected = expectedLog(started.json, text, 300);
    expect(expected).toHaveLength(304);

    // Live from 0 on both instances while A produces.
    const liveA = readEvents(`${a.url}/runs/${runId}/events`, { headers });
    const liveB = readEvents(`${b.url}/runs/${runId}/events`, { headers });
    // Live from a middle offset on B, joined mid-run.
    await waitFor(async () => (await snapshotOn(b, runId, token)).lastOffset >= 60);
    const middleB = readEvents(`${b.url}/runs/${runId}/events?after=50`, { headers });

    const [onA, onB, fromMiddle] = await Promise.all([liveA, liveB, middleB]);
    expect(onA.frames.map((f) => f.json)).toEqual(expected);
    expect(onA.frames.map((f) => f.offset)).toEqual(expected.map((_, i) => i + 1));
    expect(onB.frames).toEqual(onA.frames);
    expect(fromMiddle.frames).toEqual(onA.frames.slice(50));

    // After the end: B replays from 0, from the middle (after= and Last-Event-ID), then 204.
    const replay = await readEvents(`${b.url}/runs/${runId}/events`, { headers });
    expect(replay.frames).toEqual(onA.frames);
    const tail = await readEvents(`${b.url}/runs/${runId}/events`, {
      headers: { ...headers, 'Last-Event-ID': '150' },
    });
    expect(tail.frames).toEqual(onA.frames.slice(150));
    const done = await fetch(`${b.url}/runs/${runId}/events?after=304`, { headers });
    expect(done.status).toBe(204);
    expect(await snapshotOn(b, runId, token)).toEqual(await snapshotOn(a, runId, token));
    expect((await snapshotOn(b, runId, token)).status).toBe('finished');
  });

  it('a run longer than several leases keeps its owner: the other instances never end it', async () => {
    const text = 'outlives its lease three times';
    const started = await postRun(a.url, prompt(text, { tokens: 150, tokensPerSecond: 50 }));
    expect(started.status).toBe(201);
    const { runId, token } = started.json;
    const log = await readEvents(`${c.url}/runs/${runId}/events`, { headers: bearer(token) });
    expect(log.frames.map((f) => f.json)).toEqual(expectedLog(started.json, text, 150));
    expect((await snapshotOn(b, runId, token)).status).toBe('finished');
  });

  it('the same runId POSTed to A and B at once starts one run; B lists it on the thread', async () => {
    const runId = crypto.randomUUID();
    const threadId = `t-${runId}`;
    const body = { ...prompt('posted twice', { tokens: 8, tokensPerSecond: 0 }), runId, threadId };
    const [onA, onB] = await Promise.all([postRun(a.url, body), postRun(b.url, body)]);
    expect([onA.status, onB.status].sort()).toEqual([200, 201]);
    expect(onA.json).toEqual(onB.json);
    const log = await readEvents(`${b.url}/runs/${runId}/events`, {
      headers: bearer(onA.json.token),
    });
    expect(log.frames.map((f) => f.json)).toEqual(
      expectedLog({ runId, threadId }, 'posted twice', 8),
    );
    const thread = await fetch(`${a.url}/threads/${threadId}`, {
      headers: bearer(onA.json.token),
    });
    const listed = (await thread.json()) as { runs: Array<{ runId: string; status: string }> };
    expect(listed.runs.map((r) => [r.runId, r.status])).toEqual([[runId, 'finished']]);
  });

  it('cancel on B stops the agent on A; the log ends RUN_FINISHED cancelled, once', async () => {
    const text = 'cancel me from elsewhere';
    const started = await postRun(a.url, prompt(text, { tokens: 2000, tokensPerSecond: 50 }));
    expect(started.status).toBe(201);
    const { runId, threadId, token } = started.json;
    const headers = bearer(token);
    const reading = readEvents(`${b.url}/runs/${runId}/events`, { headers });
    await waitFor(async () => (await snapshotOn(b, runId, token)).lastOffset >= 5);

    const cancel = await fetch(`${b.url}/runs/${runId}/cancel`, { method: 'POST', headers });
    expect(cancel.status).toBe(202);
    expect(await cancel.json()).toEqual({ runId, cancelled: true });

    const log = await reading;
    const last = log.frames[log.frames.length - 1]!;
    expect(JSON.parse(last.json)).toEqual({
      type: 'RUN_FINISHED',
      threadId,
      runId,
      outcome: { type: 'cancelled' },
    });
    expect(types(log.frames).filter((t) => t === 'RUN_FINISHED' || t === 'RUN_ERROR')).toEqual([
      'RUN_FINISHED',
    ]);
    // Everything before the terminal is the scripted reply's prefix, offsets 1..N.
    const n = log.frames.length;
    expect(log.frames.slice(0, -1).map((f) => f.json)).toEqual(
      expectedLog(started.json, text, 2000).slice(0, n - 1),
    );
    expect(log.frames.map((f) => f.offset)).toEqual(log.frames.map((_, i) => i + 1));
    // The agent itself was aborted, on A (the owner), not on B.
    await waitFor(() => a.aborted.includes(runId), 5000);
    expect(b.aborted).not.toContain(runId);
    expect((await snapshotOn(a, runId, token)).status).toBe('cancelled');
  });

  it('SIGKILL A mid-run: another instance ends the run agent_lost within the lease, once; B streams the prefix then the error', async () => {
    const text = 'the producer dies';
    const started = await postRun(a.url, prompt(text, { tokens: 5000, tokensPerSecond: 100 }));
    expect(started.status).toBe(201);
    const { runId, token } = started.json;
    const headers = bearer(token);
    const reading = readEvents(`${b.url}/runs/${runId}/events`, { headers });
    await waitFor(async () => (await snapshotOn(b, runId, token)).lastOffset >= 20);

    const killedAt = Date.now();
    await a.kill('SIGKILL');
    const log = await reading;
    const closedAfter = Date.now() - killedAt;

    // The lease lapses at most LEASE_MS after the kill and a sweep runs every LEASE_MS / 3
    // (plus slack for timers on a loaded machine).
    expect(closedAfter).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1500);
    const n = log.frames.length;
    expect(n).toBeGreaterThanOrEqual(21); // at least the 20 events seen before the kill
    expect(log.frames.map((f) => f.offset)).toEqual(log.frames.map((_, i) => i + 1));
    expect(JSON.parse(log.frames[n - 1]!.json)).toEqual(AGENT_LOST);
    expect(log.frames.slice(0, -1).map((f) => f.json)).toEqual(
      expectedLog(started.json, text, 5000).slice(0, n - 1),
    );
    expect(types(log.frames).filter((t) => t === 'RUN_ERROR' || t === 'RUN_FINISHED')).toEqual([
      'RUN_ERROR',
    ]);

    // The stored log is exactly what the client saw, on every live instance, and stays so.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    const onB: Frame[] = (await readEvents(`${b.url}/runs/${runId}/events`, { headers })).frames;
    const onC: Frame[] = (await readEvents(`${c.url}/runs/${runId}/events`, { headers })).frames;
    expect(onB).toEqual(log.frames);
    expect(onC).toEqual(log.frames);
    const snapshot = await snapshotOn(c, runId, token);
    expect(snapshot.status).toBe('error');
    expect(snapshot.lastOffset).toBe(n);
    expect(snapshot.error).toEqual({ message: AGENT_LOST.message, code: 'agent_lost' });
  });
});
