import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/index.js';
import { idPart, RedisKeys } from '../../src/stores/redis/keys.js';
import { RedisStore } from '../../src/stores/redis/redis-store.js';
import { AppendConflictError } from '../../src/stores/types.js';
import { expectedLog } from '../expected.js';
import { bearer, type Frame, postRun, prompt, readEvents, waitFor } from '../helpers.js';
import { type ClusterNode, type RedisCluster, startRedisCluster } from './redis-cluster.js';
import { type ResumingReader, resumingReader } from './resuming-reader.js';
import { connected, uniquePrefix } from './shared.js';

/**
 * Primaries of a real Redis Cluster (3 primaries, 3 replicas, its own: these tests fail
 * nodes over) fail mid-run under two server instances. Appends are durable (acknowledged
 * by a replica before anyone reads them, the cluster default), so no client ever holds an
 * event the new primary lacks: every reader's log equals the stored log, and the run goes
 * on (or would end clearly, `agent_lost` / `store_unavailable`).
 */
describe('Redis Cluster failover mid-run', () => {
  let cluster: RedisCluster;
  const servers: RunningServer[] = [];
  let a: RunningServer;
  let b: RunningServer;
  let keys: RedisKeys;
  /** What A (the producing instance) logged. */
  const logged: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const prefix = uniquePrefix();
    keys = new RedisKeys(prefix);
    for (let i = 0; i < 2; i++) {
      const store = await connected(
        new RedisStore({ cluster: cluster.seeds, prefix, log: () => {} }),
      );
      const log = i === 0 ? (m: string) => logged.push(m) : () => {};
      servers.push(await startServer({ port: 0, store, log }));
    }
    [a, b] = servers as [RunningServer, RunningServer];
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await cluster?.dispose();
  });

  /** A run on A followed live through A and through B, until the test fails its primary. */
  async function runUnderFailure(
    text: string,
    fail: (primary: ClusterNode, key: string) => Promise<void>,
  ) {
    const tokens = 250;
    const started = await postRun(a.url, prompt(text, { tokens, tokensPerSecond: 50 }));
    expect(started.status).toBe(201);
    const { runId, threadId, token } = started.json;
    const headers = bearer(token);
    const readers: ResumingReader[] = [a, b].map((server) =>
      resumingReader((after) => `${server.url}/runs/${runId}/events?after=${after}`, headers),
    );
    await waitFor(() => readers.every((r) => r.frames.length >= 40), 20_000);
    const key = keys.thread(threadId);
    await fail(await cluster.primaryOf(key), key);
    const logs = await Promise.all(readers.map((r) => r.done));
    await a.manager.waitForRun(runId);
    // The stored log, read from 0 through either instance once the run ended.
    const stored = await readEvents(`${b.url}/runs/${runId}/events`, { headers });
    expect(stored.status).toBe(200);
    for (const log of logs) expect(log).toEqual(stored.frames);
    expect(stored.frames.map((f) => f.offset)).toEqual(stored.frames.map((_, i) => i + 1));
    // It went on through the failover: the whole answer, as without one.
    expect(stored.frames.map((f) => f.json)).toEqual(expectedLog(started.json, text, tokens));
  }

  it('CLUSTER FAILOVER (the replica takes over, gracefully): the run goes on, every reader has the stored log', async () => {
    await runUnderFailure('through a manual failover', async (primary, key) => {
      const replica = await cluster.replicaOf(primary);
      expect(await replica.command('CLUSTER', 'FAILOVER')).toBe('OK');
      await waitFor(async () => (await cluster.primaryOf(key)).port === replica.port);
    });
    await cluster.waitHealthy();
  }, 60_000);

  it('SIGKILL of the primary (its replica is promoted; the killed node comes back as a replica): the run goes on, every reader has the stored log', async () => {
    await runUnderFailure('through a crash of the primary', async (primary, key) => {
      const replica = await cluster.replicaOf(primary);
      await primary.kill();
      // Promoted after cluster-node-timeout (1 s); until a replica acknowledges appends
      // again, the run's events wait in the producer's memory (readers on A still get them).
      await waitFor(async () => (await cluster.primaryOf(key)).port === replica.port, 20_000);
      await primary.restart();
    });
    // The crash was an outage for the run (its appends failed, then went on), not a pause.
    expect(logged.some((m) => /holding its events in memory/.test(m))).toBe(true);
    expect(logged.some((m) => /the store is back after \d+ ms/.test(m))).toBe(true);
    await cluster.waitHealthy();
  }, 90_000);

  it('a store restored from a backup taken mid-run: a client ahead of it gets 409 offset_ahead and recovers from the snapshot', async () => {
    // An instance of its own, with a short lease: the restored run (running, nobody
    // producing it) is ended agent_lost by its sweep within about 1.3 s.
    const prefix = uniquePrefix();
    const store = await connected(
      new RedisStore({ cluster: cluster.seeds, prefix, log: () => {} }),
    );
    const c = await startServer({ port: 0, store, log: () => {}, leaseMs: 1000 });
    servers.push(c);
    const admin = new Cluster(
      cluster.seeds.map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })),
    );
    try {
      const text = 'restored from a backup';
      const started = await postRun(c.url, prompt(text, { tokens: 200, tokensPerSecond: 50 }));
      expect(started.status).toBe(201);
      const { runId, threadId, token } = started.json;
      const headers = bearer(token);
      const client = resumingReader(
        (after) => `${c.url}/runs/${runId}/events?after=${after}`,
        headers,
      );
      await waitFor(() => client.frames.length >= 60, 20_000);

      // The backup: every key of the thread at one instant (one slot, one MULTI), and the
      // keys outside it that name the run. Leases are not kept (restored, they have lapsed).
      const tag = `${prefix}{${idPart(threadId)}}`;
      const names: string[] = [];
      for (const node of admin.nodes('master')) {
        let cursor = '0';
        do {
          const [next, found] = await node.scan(cursor, 'MATCH', `${tag}*`, 'COUNT', 1000);
          cursor = next;
          names.push(...found.filter((key) => !key.endsWith(':lease')));
        } while (cursor !== '0');
      }
      const inSlot = admin.multi();
      for (const key of names) inSlot.dumpBuffer(key).pttl(key);
      const dumped = (await inSlot.exec())!.map(([, value]) => value);
      const outside = [`${prefix}active-runs`, `${prefix}runthread:${idPart(runId)}`];
      const backup = new Map<string, { data: Buffer; ttl: number }>();
      names.forEach((key, i) => {
        backup.set(key, { data: dumped[i * 2] as Buffer, ttl: dumped[i * 2 + 1] as number });
      });
      for (const key of outside) {
        backup.set(key, { data: (await admin.dumpBuffer(key))!, ttl: await admin.pttl(key) });
      }

      // The run ends; the client has it all.
      const whole = await client.done;
      expect(whole.length).toBe(204);

      // The store goes back to the backup.
      for (const [key, { data, ttl }] of backup) {
        await admin.restore(key, Math.max(0, ttl), data, 'REPLACE');
      }
      const restored = await store.getRunOf(threadId, runId);
      const kept = restored!.lastOffset;
      expect(restored?.status).toBe('running');
      expect(kept).toBeGreaterThanOrEqual(60);
      expect(kept).toBeLessThan(204);

      // The client resumes from what it has: the documented 409.
      const ahead = await fetch(`${c.url}/runs/${runId}/events?after=204`, { headers });
      expect([ahead.status, await ahead.json()]).toEqual([
        409,
        {
          error: {
            code: 'offset_ahead',
            message: `after=204 is beyond the run's last offset ${kept}`,
          },
        },
      ]);
      // It takes the snapshot (protocol.md, "What a client does", 5) and goes on from it.
      const snapshot = (await (await fetch(`${c.url}/runs/${runId}`, { headers })).json()) as {
        lastOffset: number;
        messages: Array<{ content: string }>;
      };
      const point = snapshot.lastOffset;
      expect([kept, kept + 1]).toContain(point); // the sweep may have ended it already
      const deltas = (frames: Frame[]) =>
        frames
          .map((f) => JSON.parse(f.json) as { type: string; delta?: string })
          .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
          .map((e) => e.delta)
          .join('');
      expect(snapshot.messages[0]?.content).toBe(deltas(whole.slice(0, kept)));
      const rest = resumingReader(
        (after) => `${c.url}/runs/${runId}/events?after=${after}`,
        headers,
        {
          from: point,
        },
      );
      const after = await rest.done;
      const stored = await readEvents(`${c.url}/runs/${runId}/events`, { headers });
      // The store's log: the backup's events, then the end the sweep gave the run.
      expect(stored.frames.slice(0, kept)).toEqual(whole.slice(0, kept));
      expect(stored.frames.slice(kept).map((f) => JSON.parse(f.json))).toEqual([
        {
          type: 'RUN_ERROR',
          message: 'the server running this run stopped before it finished',
          code: 'agent_lost',
        },
      ]);
      // What the recovered client applied after the snapshot is the stored log after it.
      expect(after).toEqual(stored.frames.slice(point));
    } finally {
      admin.disconnect();
    }
  }, 60_000);

  it('a durable append waits for a replica: shown to no reader until one has it; with the replica paused it fails after timeoutMs, and its retry is recognised as landed', async () => {
    const prefix = uniquePrefix();
    const open = () =>
      connected(
        new RedisStore({
          cluster: cluster.seeds,
          prefix,
          log: () => {},
          durableAppends: { replicas: 1, timeoutMs: 300 },
        }),
      );
    const [store, reader] = [await open(), await open()];
    const stream = new RedisKeys(prefix).events('t', 'r');
    try {
      const ev = (offset: number) => ({ offset, json: `{"type":"CUSTOM","name":"e${offset}"}` });
      await store.createThread({ threadId: 't', token: 'x', createdAt: 1 });
      await store.createRun({ runId: 'r', threadId: 't', createdAt: 2, owner: 'me' });
      await store.append('r', [ev(1)]);
      await waitFor(async () => (await reader.readEvents('r', 0, 10)).length === 1);
      const replica = await cluster.replicaOf(
        await cluster.primaryOf(new RedisKeys(prefix).thread('t')),
      );
      replica.pause();
      const started = performance.now();
      try {
        const refused = await store.append('r', [ev(2)]).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).toMatchObject({
          code: 'store_unavailable',
          message: 'Redis append: 0 of 1 replicas acknowledged it within 300 ms',
        });
        expect(performance.now() - started).toBeGreaterThanOrEqual(290);
        // WAIT holds its connection: durable appends have their own, so the store's reads
        // and other runs' appends are not queued behind one (they were: one connection).
        const slow = new RedisStore({
          cluster: cluster.seeds,
          prefix,
          log: () => {},
          durableAppends: { replicas: 1, timeoutMs: 3000, connections: 4 },
        });
        try {
          await connected(slow);
          const waiting = slow.append('r', [ev(2)]).catch((error: unknown) => error);
          await new Promise((resolve) => setTimeout(resolve, 100));
          const read = performance.now();
          expect(await slow.readStream(stream, 0, 10)).toEqual([ev(1), ev(2)]);
          expect(performance.now() - read).toBeLessThan(1500);
          expect(await waiting).toMatchObject({ code: 'store_unavailable' });
        } finally {
          await slow.close();
        }
        // The batch is on the primary, but no replica has it: no reader sees it.
        expect(await store.readStream(stream, 0, 10)).toEqual([ev(1), ev(2)]);
        expect(await reader.readEvents('r', 0, 10)).toEqual([ev(1)]);
      } finally {
        replica.resume();
      }
      await cluster.waitHealthy();
      // The same append again conflicts, expecting offset 3: the run log knows it landed
      // (and appends what follows it); a replica has it now, so readers see it.
      const again = await store.append('r', [ev(2)]).then(
        () => null,
        (error: unknown) => error,
      );
      expect(again).toEqual(new AppendConflictError('r', 3, 2));
      await waitFor(async () => (await reader.readEvents('r', 0, 10)).length === 2);
      await store.append('r', [ev(3)]);
      await waitFor(async () => (await reader.readEvents('r', 0, 10)).length === 3);
      expect(await reader.readEvents('r', 0, 10)).toEqual([ev(1), ev(2), ev(3)]);
    } finally {
      await Promise.all([store.close(), reader.close()]);
    }
  }, 60_000);
});
