import { ResumableError, type RunSnapshot } from '@resumable/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/stores/open.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { AppendConflictError, type StoredEvent } from '../../src/stores/types.js';
import { testRedisStore, testRedisUrl, uniquePrefix } from './shared.js';

const stores: RedisStore[] = [];
function store(options: ConstructorParameters<typeof RedisStore>[0] = {}): RedisStore {
  const s = testRedisStore(options);
  stores.push(s);
  return s;
}
/** Two stores on the same keys: what two server instances see. */
function pair(): [RedisStore, RedisStore] {
  const prefix = uniquePrefix();
  const url = testRedisUrl();
  const a = new RedisStore({ url, prefix });
  const b = new RedisStore({ url, prefix });
  stores.push(a, b);
  return [a, b];
}

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

function events(from: number, to: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let o = from; o <= to; o++) out.push({ offset: o, json: `{"type":"CUSTOM","n":${o}}` });
  return out;
}

function snapshot(runId: string, lastOffset: number): RunSnapshot {
  return { runId, threadId: 't', status: 'finished', lastOffset, messages: [] };
}

async function newRun(s: RedisStore, runId = 'r', owner = 'A') {
  await s.createThread({ threadId: 't', token: 'tok', createdAt: 1 });
  return s.createRun({ runId, threadId: 't', createdAt: 2, owner });
}

describe('RedisStore (Redis-specific behaviour)', () => {
  it('stores events in a stream whose entry ids are the offsets', async () => {
    const s = store();
    await newRun(s);
    await s.append('r', events(1, 3));
    expect(await s.readEvents('r', 0, 10)).toEqual(events(1, 3));
    expect(await s.readEvents('r', 2, 10)).toEqual(events(3, 3));
    expect(await s.readEvents('r', 3, 10)).toEqual([]);
    expect(await s.readEvents('r', 0, 2)).toEqual(events(1, 2));
  });

  it('two instances racing to append the same offset: exactly one wins, the log stays gapless', async () => {
    const [a, b] = pair();
    await newRun(a);
    await a.append('r', events(1, 5));
    const lostA = { offset: 6, json: '{"type":"RUN_ERROR","message":"a","code":"agent_lost"}' };
    const lostB = { offset: 6, json: '{"type":"RUN_ERROR","message":"b","code":"agent_lost"}' };
    const end = { status: 'error' as const, endedAt: 9, snapshot: snapshot('r', 6) };
    const results = await Promise.allSettled([
      a.append('r', [lostA], end),
      b.append('r', [lostB], end),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(AppendConflictError);
    const log = await b.readEvents('r', 0, 100);
    expect(log.map((e) => e.offset)).toEqual([1, 2, 3, 4, 5, 6]);
    expect([lostA.json, lostB.json]).toContain(log[5]!.json);
    expect((await a.getRun('r'))?.status).toBe('error');
  });

  it('a conflicting batch writes nothing: not the events, not the end', async () => {
    const s = store();
    await newRun(s);
    await s.append('r', events(1, 2));
    await expect(
      s.append('r', events(2, 4), { status: 'finished', endedAt: 5, snapshot: snapshot('r', 4) }),
    ).rejects.toEqual(new AppendConflictError('r', 3, 2));
    await expect(s.append('r', [events(3, 3)[0]!, events(5, 5)[0]!])).rejects.toEqual(
      new AppendConflictError('r', 4, 5),
    );
    const run = await s.getRun('r');
    expect(run).toMatchObject({ status: 'running', lastOffset: 2, endedAt: null, snapshot: null });
    expect(await s.readEvents('r', 0, 10)).toEqual(events(1, 2));
  });

  it('subscribe tails another instance live: from 0 and from a middle offset, in order, once', async () => {
    const [a, b] = pair();
    await newRun(a);
    await a.append('r', events(1, 4));
    const fromZero: StoredEvent[] = [];
    const fromMiddle: StoredEvent[] = [];
    const stopZero = b.subscribe('r', 0, (batch) => fromZero.push(...batch));
    const stopMiddle = b.subscribe('r', 3, (batch) => fromMiddle.push(...batch));
    for (let o = 5; o <= 40; o++) await a.append('r', events(o, o));
    await waitUntil(() => fromZero.length === 40 && fromMiddle.length === 37);
    expect(fromZero).toEqual(events(1, 40));
    expect(fromMiddle).toEqual(events(4, 40));
    stopZero();
    stopMiddle();
  });

  it('a tail added while the shared reader is blocked gets its events at once', async () => {
    const [a, b] = pair();
    await newRun(a, 'r1');
    await a.createRun({ runId: 'r2', threadId: 't', createdAt: 3, owner: 'A' });
    const first: StoredEvent[] = [];
    const stop1 = b.subscribe('r1', 0, (batch) => first.push(...batch));
    // The reader is now blocked on r1 only (blockMs is 5 s by default).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second: StoredEvent[] = [];
    const started = Date.now();
    const stop2 = b.subscribe('r2', 0, (batch) => second.push(...batch));
    await a.append('r2', events(1, 1));
    await waitUntil(() => second.length === 1);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(second).toEqual(events(1, 1));
    expect(first).toEqual([]);
    stop1();
    stop2();
  });

  it('a tail added further back than the read in flight gets its whole backlog, in order', async () => {
    const [a, b] = pair();
    await newRun(a);
    await a.append('r', events(1, 40));
    const ahead: StoredEvent[] = [];
    const behind: StoredEvent[] = [];
    const stopAhead = b.subscribe('r', 40, (batch) => ahead.push(...batch));
    // The reader is now blocked reading after offset 40.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopBehind = b.subscribe('r', 0, (batch) => behind.push(...batch));
    await a.append('r', events(41, 45));
    await waitUntil(() => behind.length === 45 && ahead.length === 5);
    expect(behind).toEqual(events(1, 45));
    expect(ahead).toEqual(events(41, 45));
    stopAhead();
    stopBehind();
  });

  it('leases: SET NX PX, renewal by the holder only, lapse makes the run an orphan', async () => {
    const [a, b] = pair();
    await newRun(a, 'r', 'A');
    // createRun holds a provisional lease, so a brand-new run is no orphan.
    expect(await b.findOrphanedRuns()).toEqual([]);
    expect(await a.acquireLease('r', 'A', 300)).toBe(true);
    expect(await b.acquireLease('r', 'B', 300)).toBe(false);
    expect(await b.renewLease('r', 'B', 300)).toBe(false);
    expect(await a.renewLease('r', 'A', 300)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 450));
    const orphans = await b.findOrphanedRuns();
    expect(orphans.map((r) => [r.runId, r.status, r.owner])).toEqual([['r', 'running', 'A']]);
    // A holder whose lease lapsed while its run still runs takes it back on renewal.
    expect(await a.renewLease('r', 'A', 5000)).toBe(true);
    expect(await b.findOrphanedRuns()).toEqual([]);
    await a.releaseLease('r', 'A');
    expect((await b.findOrphanedRuns()).map((r) => r.runId)).toEqual(['r']);
    // An ended run is never an orphan.
    await b.append('r', events(1, 1), { status: 'error', endedAt: 3, snapshot: snapshot('r', 1) });
    expect(await a.findOrphanedRuns()).toEqual([]);
  });

  it('cancel from any instance reaches the owner through pub/sub, and again through the lease renewal', async () => {
    const [a, b] = pair();
    await newRun(a, 'r', 'A');
    const heard: string[] = [];
    const off = a.onCancelRequest((runId) => heard.push(runId));
    // Let the subscription reach Redis before publishing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await b.requestCancel('r');
    await waitUntil(() => heard.length === 1);
    expect(heard).toEqual(['r']);
    // A missed message is not lost: the flag is seen when the owner renews its lease.
    expect(await a.renewLease('r', 'A', 1000)).toBe(true);
    expect(heard).toEqual(['r', 'r']);
    off();
  });

  it('retention: the events stream expires after the run ends, the run and its snapshot stay', async () => {
    const s = store({ eventsTtlMs: 200 });
    await newRun(s);
    await s.append('r', events(1, 3), {
      status: 'finished',
      endedAt: 10,
      snapshot: snapshot('r', 3),
    });
    expect((await s.getRun('r'))?.eventsPruned).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const run = await s.getRun('r');
    expect(run).toMatchObject({ status: 'finished', lastOffset: 3, eventsPruned: true });
    expect(run?.snapshot).toEqual(snapshot('r', 3));
    expect(await s.readEvents('r', 0, 10)).toEqual([]);
  });

  it('RESUMABLE_STORE=redis://host:port opens a shared Redis store', async () => {
    const opened = openStore(testRedisUrl());
    try {
      expect(opened).toBeInstanceOf(RedisStore);
      expect([opened.kind, opened.shared]).toEqual(['redis', true]);
      const threadId = `open-${uniquePrefix()}`;
      expect(await opened.createThread({ threadId, token: 'x', createdAt: 7 })).toBe(true);
      expect(await opened.getThread(threadId)).toEqual({ threadId, token: 'x', createdAt: 7 });
    } finally {
      await opened.close();
    }
    expect(() => openStore('mongodb://x')).toThrow(
      'unknown store "mongodb://x": use "memory", "sqlite:<path>", "redis://host:port" or "redis+cluster://host:port,host:port"',
    );
  });

  it('an unreachable Redis fails fast with store_unavailable', async () => {
    const s = store({ url: 'redis://127.0.0.1:1', connectWaitMs: 200, log: () => {} });
    const started = Date.now();
    const error = await s.getRun('r').catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ResumableError',
      code: 'store_unavailable',
      status: 503,
      message: expect.stringMatching(
        /^Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \((re)?connecting for 200 ms\)$/,
      ),
    });
    expect(error).toBeInstanceOf(ResumableError);
    // Fails within connectWaitMs (plus a loaded machine's slack), never parked in a queue.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a connection lost while a call is on its way says unreachable, as a waiting call does', async () => {
    const s = store({ log: () => {} });
    await s.getRun('warm-up');
    // What ioredis answers when Redis went away between the ready check and the write.
    const lost = await s
      .call('getThread', async (client) => {
        client.disconnect();
        throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
      })
      .catch((e: unknown) => e);
    expect(lost).toMatchObject({
      code: 'store_unavailable',
      status: 503,
      message: `Redis at ${testRedisUrl()} is unreachable (getThread: Stream isn't writeable and enableOfflineQueue options is false)`,
    });
    // A failure with the connection up is Redis's own answer, said as such.
    const other = store({ log: () => {} });
    const refused = await other
      .call('getThread', async () => {
        throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
      })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'store_unavailable',
      message:
        'Redis getThread failed: WRONGTYPE Operation against a key holding the wrong kind of value',
    });
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
