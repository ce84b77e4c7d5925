/**
 * `pnpm bench fleet`: a fleet on a Redis Cluster against one instance on one Redis.
 *
 * 1. Fan-out: `RUNS` runs at once, each producing `RATE` events/s for `SECONDS`, each read by
 *    `SUBSCRIBERS` subscribers. Three setups, measured one after another in the same run:
 *    - one server instance on one Redis (every run and subscriber on it);
 *    - three instances on a Redis Cluster of 3 shards (3 primaries, 3 replicas), appends
 *      durable (acknowledged by a replica first, the cluster default); runs are started
 *      round robin over the instances and each run's subscribers are spread over all
 *      three (two in three read a run produced elsewhere);
 *    - the same fleet with `durableAppends: false`: the durable append's cost, as a ratio.
 *    Figures: delivered events/s, p50/p99 latency (event produced in the agent → frame
 *    parsed by a subscriber, one clock), Redis commands per delivered event — sent by the
 *    instances (`RedisStore.stats`: a script call is one) and run by the primaries (`INFO
 *    stats` total_commands_processed: each step of a script counts) — and the instances'
 *    CPU per 1,000 delivered events.
 * 2. Appends alone, one event per append, one after another from this process to one run
 *    on the cluster: durable (script + `WAIT 1` in one pipeline) against not — the
 *    latency ratio of the durable append itself.
 * 3. One shard's appends: 64 runs whose threads hash to one primary, appended at once
 *    from this process for 2 s (a lower bound: this process and the shard share 2 cores).
 *
 * Every server instance is a process of its own; the subscribers are plain HTTP
 * connections in this process. Each measurement is repeated `ROUNDS` (3) times, the setups
 * taking turns, and reported as the median of its rounds. Writes bench/results/fleet.json and prints tables.
 * `BENCH_QUICK=1`: 3 runs × 2 subscribers for 1 s and small append counts, a smoke run
 * whose figures go to the temp folder (see lib/results.ts).
 */
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { RedisStore } from '@resumable/server';
import {
  type RedisCluster,
  startRedisCluster,
} from '../packages/server/test/redis/redis-cluster.js';
import { type RedisServer, startRedisServer } from '../packages/server/test/redis/redis-server.js';
import {
  ask,
  INSTANCE_FLAG,
  type Instance,
  type Mem,
  now,
  runInstance,
  type Subscriber,
  sleep,
  startInstance,
  stopInstance,
  subscribe,
} from './lib/fanout.js';
import { QUICK, quickOr, writeResults } from './lib/results.js';
import { latencyColumns, latencyStats, median, round1 } from './lib/stats.js';

const RUNS = quickOr(30, 3);
const SUBSCRIBERS = quickOr(10, 2);
/** A typical model's token rate. */
const RATE = 20;
const SECONDS = quickOr(5, 1);
const APPENDS = quickOr(2000, 100);
const SHARD_RUNS = quickOr(64, 8);
const SHARD_SECONDS = quickOr(2, 0.5);
/** Each setup is measured this many times, taking turns; the figures are medians. */
const ROUNDS = quickOr(3, 1);

if (process.argv.includes(INSTANCE_FLAG)) {
  // A server instance: one Redis or the cluster, from the environment.
  const prefix = process.env.BENCH_PREFIX!;
  const store = process.env.BENCH_CLUSTER
    ? new RedisStore({
        cluster: process.env.BENCH_CLUSTER.split(','),
        prefix,
        durableAppends: process.env.BENCH_DURABLE === '1' ? {} : false,
        log: () => {},
      })
    : new RedisStore({ url: process.env.BENCH_REDIS_URL!, prefix, log: () => {} });
  await runInstance(store, () => {}, RUNS);
} else {
  await main();
}

interface Setup {
  name: string;
  instances: Instance[];
  /** The primaries whose commands are counted. */
  primaries: () => Promise<Array<{ command(...args: string[]): Promise<unknown> }>>;
}

/** `total_commands_processed` summed over `nodes`. */
async function commands(nodes: Array<{ command(...args: string[]): Promise<unknown> }>) {
  let total = 0;
  for (const node of nodes) {
    const info = String(await node.command('INFO', 'stats'));
    total += Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  }
  return total;
}

/** `RUNS` runs round robin over the setup's instances, their subscribers over all of them. */
async function fanout(setup: Setup) {
  const { instances } = setup;
  for (const instance of instances) await ask(instance.child, 'arm');
  const runs: Array<{ runId: string; token: string }> = [];
  for (let i = 0; i < RUNS; i++) {
    const producer = instances[i % instances.length]!;
    const created = await fetch(`${producer.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messages: [],
        forwardedProps: { bench: { events: RATE * SECONDS, rate: RATE } },
      }),
    });
    if (created.status !== 201) throw new Error(`POST /runs answered ${created.status}`);
    runs.push((await created.json()) as { runId: string; token: string });
  }
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = [];
  const subs: Subscriber[] = [];
  const perInstance = instances.map(() => 0);
  runs.forEach((run, i) => {
    for (let j = 0; j < SUBSCRIBERS; j++) {
      const at = (i + j) % instances.length;
      perInstance[at]!++;
      const url = `${instances[at]!.url}/runs/${run.runId}/events?after=0`;
      subs.push(subscribe(url, run.token, latencies, agent));
    }
  });
  // Every stream open (bounded wait) before the first tick.
  for (const [i, instance] of instances.entries()) {
    for (let tries = 0; ; tries++) {
      const { subscribers } = await ask<{ subscribers: number }>(instance.child, 'count');
      if (subscribers >= perInstance[i]!) break;
      if (tries === 400) throw new Error(`only ${subscribers} of ${perInstance[i]} streams opened`);
      await sleep(50);
    }
  }
  await sleep(300);
  const primaries = await setup.primaries();
  const cpuBefore = await Promise.all(instances.map((x) => ask<Mem>(x.child, 'mem')));
  const opsBefore = await commands(primaries);
  const started = now();
  for (const instance of instances) instance.child.send({ type: 'go' });
  await Promise.all(subs.map((s) => s.done));
  const elapsedSeconds = (now() - started) / 1000;
  const opsAfter = await commands(primaries);
  const cpuAfter = await Promise.all(instances.map((x) => ask<Mem>(x.child, 'mem')));
  agent.destroy();
  const delivered = subs.reduce((sum, s) => sum + s.events, 0);
  const expected = RUNS * SUBSCRIBERS * RATE * SECONDS;
  const cpuMs = cpuAfter.reduce((sum, m, i) => sum + m.cpuMs - cpuBefore[i]!.cpuMs, 0);
  const sent = cpuAfter.reduce(
    (sum, m, i) => sum + m.storeCommands - cpuBefore[i]!.storeCommands,
    0,
  );
  const ops = opsAfter - opsBefore;
  return {
    setup: setup.name,
    instances: instances.length,
    runs: RUNS,
    subscribersPerRun: SUBSCRIBERS,
    eventsPerSecondPerRun: RATE,
    delivered,
    complete: delivered === expected && subs.every((s) => s.inOrder),
    deliveredEventsPerSecond: Math.round(delivered / elapsedSeconds),
    latencyMs: latencyStats(latencies),
    /** Commands the instances sent (a script call is one). */
    commandsSent: sent,
    commandsSentPerDeliveredEvent: round3(sent / delivered),
    commandsSentPerProducedEvent: round2(sent / (RUNS * RATE * SECONDS)),
    /** Commands the primaries ran, each step of a script counted. */
    commandsRun: ops,
    commandsRunPerDeliveredEvent: round3(ops / delivered),
    instanceCpuMsPer1000Delivered: round1((cpuMs / delivered) * 1000),
  };
}

/** Appends of one event each, one after another, to one run: their latencies. */
async function appendLatencies(store: RedisStore, threadId: string) {
  await store.createThread({ threadId, token: 'x', createdAt: Date.now() });
  const runId = `${threadId}-run`;
  await store.createRun({ runId, threadId, createdAt: Date.now(), owner: 'bench' });
  const json = JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'token ' });
  const times: number[] = [];
  for (let offset = 1; offset <= APPENDS; offset++) {
    const t = performance.now();
    await store.append(runId, [{ offset, json }]);
    times.push(performance.now() - t);
  }
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  return { appends: APPENDS, meanMs: Math.round(mean * 1000) / 1000, ...latencyStats(times) };
}

/** Appends per second one shard takes from `SHARD_RUNS` runs appended at once. */
async function shardAppends(cluster: RedisCluster, store: RedisStore, prefix: string) {
  const target = await cluster.primaryOf(`${prefix}{shard-0}:thread`);
  const threads: string[] = [];
  for (let i = 0; threads.length < SHARD_RUNS; i++) {
    const threadId = `shard-${i}`;
    if ((await cluster.primaryOf(`${prefix}{${threadId}}:thread`)).port === target.port) {
      threads.push(threadId);
    }
  }
  const json = JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'token ' });
  for (const threadId of threads) {
    await store.createThread({ threadId, token: 'x', createdAt: Date.now() });
    await store.createRun({ runId: `${threadId}-r`, threadId, createdAt: Date.now(), owner: 'b' });
  }
  const until = performance.now() + SHARD_SECONDS * 1000;
  let appends = 0;
  await Promise.all(
    threads.map(async (threadId) => {
      for (let offset = 1; performance.now() < until; offset++) {
        await store.append(`${threadId}-r`, [{ offset, json }]);
        appends++;
      }
    }),
  );
  return Math.round(appends / SHARD_SECONDS);
}

async function main(): Promise<void> {
  const load: number[][] = [loadavg()];
  let redis: RedisServer | null = null;
  let cluster: RedisCluster | null = null;
  const started: Instance[] = [];
  try {
    [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
    const self = fileURLToPath(import.meta.url);
    const seeds = cluster.seeds.join(',');
    const spawn = (env: Record<string, string>) =>
      startInstance(self, env).then((instance) => {
        started.push(instance);
        return instance;
      });
    const single = await spawn({ BENCH_REDIS_URL: redis.url, BENCH_PREFIX: 'single:' });
    const durable = await Promise.all(
      [0, 1, 2].map(() => spawn({ BENCH_CLUSTER: seeds, BENCH_DURABLE: '1', BENCH_PREFIX: 'd:' })),
    );
    const fast = await Promise.all(
      [0, 1, 2].map(() => spawn({ BENCH_CLUSTER: seeds, BENCH_DURABLE: '0', BENCH_PREFIX: 'f:' })),
    );
    const theCluster = cluster;
    const theRedis = redis;
    const clusterPrimaries = () => theCluster.primaries();
    const setups: Setup[] = [
      { name: '1 instance, 1 Redis', instances: [single], primaries: async () => [theRedis] },
      {
        name: '3 instances, 3-shard cluster, durable appends',
        instances: durable,
        primaries: clusterPrimaries,
      },
      {
        name: '3 instances, 3-shard cluster, durableAppends: false',
        instances: fast,
        primaries: clusterPrimaries,
      },
    ];
    // Rounds, the setups taking turns in each, so load from other work on the machine falls
    // on all of them alike; each figure is the median of its rounds.
    const rounds: Array<Array<Awaited<ReturnType<typeof fanout>>>> = setups.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, setup] of setups.entries()) rounds[i]!.push(await fanout(setup));
    }
    const rows = rounds.map(medianRow);

    const appendStores = [true, false].map(
      (on) =>
        new RedisStore({
          cluster: cluster!.seeds,
          prefix: on ? 'append-d:' : 'append-f:',
          durableAppends: on ? {} : false,
          log: () => {},
        }),
    );
    const appendRounds: Array<Array<Awaited<ReturnType<typeof appendLatencies>>>> = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of [0, 1]) {
        appendRounds[i]!.push(await appendLatencies(appendStores[i]!, `latency-${round}`));
      }
    }
    const [durableAppend, plainAppend] = appendRounds.map((all) =>
      all.reduce((a, b) => (a.meanMs <= b.meanMs ? a : b)),
    ) as [(typeof appendRounds)[0][0], (typeof appendRounds)[0][0]];
    const durableMeans = appendRounds[0]!.map((r) => r.meanMs);
    const plainMeans = appendRounds[1]!.map((r) => r.meanMs);
    const shard = {
      durable: await shardAppends(cluster, appendStores[0]!, 'append-d:'),
      plain: await shardAppends(cluster, appendStores[1]!, 'append-f:'),
    };
    await Promise.all(appendStores.map((s) => s.close()));
    load.push(loadavg());

    const [one, fleet, fleetFast] = rows as [
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
    ];
    const results = {
      machine: {
        node: process.version,
        cpus: cpus().length,
        // 1/5/15-minute load averages before and after: other work on the machine skews
        // latencies, and every setup shares whatever there was.
        loadAverage: load.map((l) => l.map(round1)),
      },
      method:
        "each server instance in its own process, subscribers and appenders in the bench process; latency = produced in the agent → parsed by the subscriber; commands sent = counted by the instances (RedisStore.stats, a script call is one); commands run = the primaries' INFO stats total_commands_processed (each step of a script counts)",
      seconds: SECONDS,
      rounds: ROUNDS,
      fanout: rows,
      fanoutRounds: rounds,
      durableAppend: {
        /** The round with the lowest mean of each (the least disturbed by other work). */
        append: { durable: durableAppend, plain: plainAppend },
        meanMsByRound: { durable: durableMeans, plain: plainMeans },
        appendLatencyRatio: round2(median(durableMeans) / median(plainMeans)),
        fanoutP50Ratio: round2(fleet.latencyMs.p50 / fleetFast.latencyMs.p50),
        fanoutP99Ratio: round2(fleet.latencyMs.p99 / fleetFast.latencyMs.p99),
      },
      shardAppendsPerSecond: shard,
      fleetVsOne: {
        deliveredRatio: round2(fleet.deliveredEventsPerSecond / one.deliveredEventsPerSecond),
        p50Ratio: round2(fleet.latencyMs.p50 / one.latencyMs.p50),
        p99Ratio: round2(fleet.latencyMs.p99 / one.latencyMs.p99),
      },
    };
    writeResults('fleet', results);
    console.log(
      `\n${RUNS} runs × ${SUBSCRIBERS} subscribers, ${RATE} events/s each, for ${SECONDS} s${QUICK ? ' (quick)' : ''}`,
    );
    console.table(
      rows.map((r) => ({
        setup: r.setup,
        'delivered ev/s': r.deliveredEventsPerSecond,
        complete: r.complete,
        ...latencyColumns(r.latencyMs),
        'cmds sent / delivered': r.commandsSentPerDeliveredEvent,
        'cmds sent / produced': r.commandsSentPerProducedEvent,
        'cmds run / delivered': r.commandsRunPerDeliveredEvent,
        'CPU ms / 1k delivered': r.instanceCpuMsPer1000Delivered,
      })),
    );
    console.table({
      'append, durable (script + WAIT 1)': durableAppend,
      'append, not durable': plainAppend,
    });
    console.log(
      `durable append cost: ${results.durableAppend.appendLatencyRatio}× the append latency, fan-out p50 ${results.durableAppend.fanoutP50Ratio}× / p99 ${results.durableAppend.fanoutP99Ratio}×; one shard takes ${shard.durable} durable / ${shard.plain} plain appends/s from this process`,
    );
  } finally {
    await Promise.all(started.map(stopInstance));
    await redis?.dispose();
    await cluster?.dispose();
  }
}

/** A setup's figures over its rounds: the median of each (`complete` only if every round was). */
function medianRow(all: Array<Awaited<ReturnType<typeof fanout>>>) {
  const first = all[0]!;
  const mid = (pick: (r: typeof first) => number) => median(all.map(pick));
  return {
    ...first,
    delivered: mid((r) => r.delivered),
    complete: all.every((r) => r.complete),
    deliveredEventsPerSecond: mid((r) => r.deliveredEventsPerSecond),
    latencyMs: {
      p50: mid((r) => r.latencyMs.p50),
      p99: mid((r) => r.latencyMs.p99),
      max: mid((r) => r.latencyMs.max),
    },
    commandsSent: mid((r) => r.commandsSent),
    commandsSentPerDeliveredEvent: mid((r) => r.commandsSentPerDeliveredEvent),
    commandsSentPerProducedEvent: mid((r) => r.commandsSentPerProducedEvent),
    commandsRun: mid((r) => r.commandsRun),
    commandsRunPerDeliveredEvent: mid((r) => r.commandsRunPerDeliveredEvent),
    instanceCpuMsPer1000Delivered: mid((r) => r.instanceCpuMsPer1000Delivered),
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
