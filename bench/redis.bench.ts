/**
 * `pnpm bench redis`: fan-out across two server instances sharing Redis.
 *
 * One run is produced on instance A; 500 subscribers read it through A and 500 through B
 * (B follows A's appends with its shared `XREAD BLOCK` tail). Beside it, measured in the
 * same run with the same harness: one instance on SQLite with all 1,000 subscribers.
 * Every server instance is a process of its own; the subscribers are plain HTTP
 * connections in this process. Latency = event produced in A's agent → frame parsed by a
 * subscriber (one clock: same machine). Every subscriber must receive every event,
 * offsets 1..N in order, or the row says `complete: false`.
 *
 * Writes bench/results/redis.json and prints a table. `BENCH_QUICK=1`: 10 subscribers for 1 s
 * per rate, a smoke run whose figures go to the temp folder (see lib/results.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisStore, SqliteStore } from '@resumable/server';
import { startRedisServer } from '../packages/server/test/redis/redis-server.js';
import {
  INSTANCE_FLAG,
  type Instance,
  measureFanout,
  runInstance,
  startInstance,
  stopInstance,
} from './lib/fanout.js';
import { quickOr, writeResults } from './lib/results.js';
import { latencyColumns, round1 } from './lib/stats.js';

const SUBSCRIBERS = quickOr(1000, 10);
const SECONDS = quickOr(5, 1);
/** A typical model's token rate, and issue 3's fan-out rate. */
const RATES = [20, 200];

if (process.argv.includes(INSTANCE_FLAG)) {
  // A server instance: SQLite or Redis from the environment.
  await runInstance(
    process.env.BENCH_REDIS_URL
      ? new RedisStore({ url: process.env.BENCH_REDIS_URL, prefix: process.env.BENCH_PREFIX! })
      : new SqliteStore({ path: process.env.BENCH_SQLITE_PATH! }),
  );
} else {
  await main();
}

/**
 * One run produced on `producer`; `SUBSCRIBERS` split evenly over `readers` (which may
 * include the producer).
 */
async function fanout(producer: Instance, readers: Instance[], rate: number) {
  const m = await measureFanout({
    producer,
    readers,
    subscribers: SUBSCRIBERS,
    rate,
    seconds: SECONDS,
  });
  return {
    eventsPerSecondProduced: rate,
    events: m.events,
    subscribers: SUBSCRIBERS,
    delivered: m.delivered,
    complete: m.delivered === m.expected && m.inOrder,
    deliveredEventsPerSecond: m.deliveredEventsPerSecond,
    latencyMs: m.latencyMs,
    latencyMsByInstance: m.latencyMsByReader,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const redis = await startRedisServer();
  const rows: Array<{ setup: string } & Awaited<ReturnType<typeof fanout>>> = [];
  const load: number[][] = [loadavg()];
  try {
    // All three instances up front, so the two setups are measured alternately, rate by
    // rate, under the same background load.
    const env = { BENCH_REDIS_URL: redis.url, BENCH_PREFIX: 'bench:' };
    const self = fileURLToPath(import.meta.url);
    const [single, a, b] = await Promise.all([
      startInstance(self, { BENCH_SQLITE_PATH: join(dir, 'bench.db') }),
      startInstance(self, env),
      startInstance(self, env),
    ]);
    try {
      for (const rate of RATES) {
        // Single instance on SQLite: all subscribers on the producer.
        rows.push({
          setup: `sqlite, 1 instance × ${SUBSCRIBERS}`,
          ...(await fanout(single, [single], rate)),
        });
        // Two instances on Redis: produced on A, 500 subscribers on each of A and B.
        rows.push({
          setup: `redis, A × ${SUBSCRIBERS / 2} + B × ${SUBSCRIBERS / 2}`,
          ...(await fanout(a, [a, b], rate)),
        });
      }
    } finally {
      await Promise.all([single, a, b].map(stopInstance));
    }
  } finally {
    await redis.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  load.push(loadavg());

  const results = {
    machine: {
      node: process.version,
      cpus: cpus().length,
      // 1/5/15-minute load averages before and after: other work on the machine skews
      // latencies, and both setups share whatever there was.
      loadAverage: load.map((l) => l.map(round1)),
    },
    method:
      'one run; each server instance in its own process, subscribers in the bench process; latency = produced in the agent → parsed by the subscriber',
    seconds: SECONDS,
    fanout: rows,
  };
  writeResults('redis', results);
  console.log(`\nFan-out of one run to ${SUBSCRIBERS} subscribers for ${SECONDS} s`);
  console.table(
    rows.map((r) => ({
      setup: r.setup,
      'produced ev/s': r.eventsPerSecondProduced,
      'delivered ev/s': r.deliveredEventsPerSecond,
      complete: r.complete,
      ...latencyColumns(r.latencyMs),
      'p99 per instance ms': r.latencyMsByInstance.map((l) => l.p99).join(' / '),
    })),
  );
}
