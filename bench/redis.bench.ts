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
 * Writes bench/results/redis.json and prints a table.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AGUIEvent } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import { type Agent, RedisStore, SqliteStore, startServer } from '@resumable/server';
import { startRedisServer } from '../packages/server/test/redis/redis-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const SUBSCRIBERS = 1000;
const SECONDS = 5;
/** A typical model's token rate, and issue 3's fan-out rate. */
const RATES = [20, 200];
const now = () => performance.timeOrigin + performance.now();

if (process.argv.includes('--instance')) {
  await instance();
} else {
  await main();
}

/** A server instance: SQLite or Redis from the environment; an agent that ticks on `go`. */
async function instance(): Promise<void> {
  let release: () => void = () => {};
  let go = new Promise<void>((resolve) => {
    release = resolve;
  });
  const agent: Agent = async function* (input, { signal }) {
    const { events, rate } = (input.forwardedProps as { bench: { events: number; rate: number } })
      .bench;
    await go;
    const start = performance.now();
    for (let i = 0; i < events && !signal.aborted; i++) {
      const due = start + (i * 1000) / rate - performance.now();
      if (due > 1) await new Promise((resolve) => setTimeout(resolve, due));
      yield { type: EventType.CUSTOM, name: 'tick', value: { i, t: now() } } as AGUIEvent;
    }
  };
  const store = process.env.BENCH_REDIS_URL
    ? new RedisStore({ url: process.env.BENCH_REDIS_URL, prefix: process.env.BENCH_PREFIX! })
    : new SqliteStore({ path: process.env.BENCH_SQLITE_PATH! });
  const server = await startServer({
    port: 0,
    store,
    agent,
    limits: { maxSubscribersPerRun: 10_000, maxConcurrentRuns: 10 },
  });
  process.on('message', async (message: { type: string }) => {
    if (message.type === 'go') {
      release();
    } else if (message.type === 'arm') {
      go = new Promise<void>((resolve) => {
        release = resolve;
      });
      process.send?.({ type: 'armed' });
    } else if (message.type === 'count') {
      process.send?.({ type: 'count', subscribers: server.manager.subscriberCount() });
    } else if (message.type === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
  process.send?.({ type: 'ready', url: server.url });
}

interface Instance {
  child: ChildProcess;
  url: string;
}

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = fork(fileURLToPath(import.meta.url), ['--instance'], {
    execArgv: process.execArgv,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  return { child, url: ready.url };
}

async function stopInstance(instance: Instance): Promise<void> {
  instance.child.send({ type: 'stop' });
  await once(instance.child, 'exit');
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== (type === 'arm' ? 'armed' : type)) return;
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

interface Subscriber {
  events: number;
  /** False once an offset arrived out of order or twice. */
  inOrder: boolean;
  done: Promise<void>;
}

/** One SSE connection with a minimal parser: checks offsets, records each tick's latency. */
function subscribe(url: string, token: string, latencies: number[], agent: http.Agent): Subscriber {
  const sub: Subscriber = { events: 0, inOrder: true, done: Promise.resolve() };
  let lastOffset = 0;
  sub.done = new Promise<void>((resolve, reject) => {
    const req = http.get(url, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`subscriber got ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (text: string) => {
        const received = now();
        buffer += text;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (!frame.startsWith('id:')) continue;
          const offset = Number.parseInt(frame.slice(3), 10);
          if (offset !== lastOffset + 1) sub.inOrder = false;
          lastOffset = offset;
          const at = frame.indexOf('"t":');
          if (at !== -1) {
            sub.events++;
            latencies.push(received - Number.parseFloat(frame.slice(at + 4)));
          }
        }
      });
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return sub;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function stats(latencies: number[]) {
  const sorted = Float64Array.from(latencies).sort();
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/**
 * One run produced on `producer`; `SUBSCRIBERS` split evenly over `readers` (which may
 * include the producer).
 */
async function fanout(producer: Instance, readers: Instance[], rate: number) {
  const events = rate * SECONDS;
  await ask(producer.child, 'arm');
  const created = await fetch(`${producer.url}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [], forwardedProps: { bench: { events, rate } } }),
  });
  if (created.status !== 201) throw new Error(`POST /runs answered ${created.status}`);
  const run = (await created.json()) as { runId: string; token: string };
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const perReader = readers.map(() => ({ latencies: [] as number[], subs: [] as Subscriber[] }));
  const share = SUBSCRIBERS / readers.length;
  readers.forEach((reader, r) => {
    for (let i = 0; i < share; i++) {
      perReader[r]!.subs.push(
        subscribe(
          `${reader.url}/runs/${run.runId}/events?after=0`,
          run.token,
          perReader[r]!.latencies,
          agent,
        ),
      );
    }
  });
  // Every stream open (bounded wait) before the first tick.
  for (const reader of readers) {
    for (let i = 0; i < 400; i++) {
      const { subscribers } = await ask<{ subscribers: number }>(reader.child, 'count');
      if (subscribers >= share) break;
      if (i === 399) throw new Error(`only ${subscribers} of ${share} streams opened`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = now();
  producer.child.send({ type: 'go' });
  const all = perReader.flatMap((p) => p.subs);
  await Promise.all(all.map((s) => s.done));
  const elapsed = (now() - started) / 1000;
  agent.destroy();
  const delivered = all.reduce((sum, s) => sum + s.events, 0);
  return {
    eventsPerSecondProduced: rate,
    events,
    subscribers: SUBSCRIBERS,
    delivered,
    complete: delivered === SUBSCRIBERS * events && all.every((s) => s.inOrder),
    deliveredEventsPerSecond: Math.round(delivered / elapsed),
    latencyMs: stats(perReader.flatMap((p) => p.latencies)),
    latencyMsByInstance: perReader.map((p) => stats(p.latencies)),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
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
    const [single, a, b] = await Promise.all([
      startInstance({ BENCH_SQLITE_PATH: join(dir, 'bench.db') }),
      startInstance(env),
      startInstance(env),
    ]);
    try {
      for (const rate of RATES) {
        // Single instance on SQLite: all subscribers on the producer.
        rows.push({
          setup: 'sqlite, 1 instance × 1000',
          ...(await fanout(single, [single], rate)),
        });
        // Two instances on Redis: produced on A, 500 subscribers on each of A and B.
        rows.push({ setup: 'redis, A × 500 + B × 500', ...(await fanout(a, [a, b], rate)) });
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
      loadAverage: load.map((l) => l.map((v) => round(v))),
    },
    method:
      'one run; each server instance in its own process, subscribers in the bench process; latency = produced in the agent → parsed by the subscriber',
    seconds: SECONDS,
    fanout: rows,
  };
  writeFileSync(join(here, 'results', 'redis.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nFan-out of one run to ${SUBSCRIBERS} subscribers for ${SECONDS} s`);
  console.table(
    rows.map((r) => ({
      setup: r.setup,
      'produced ev/s': r.eventsPerSecondProduced,
      'delivered ev/s': r.deliveredEventsPerSecond,
      complete: r.complete,
      'p50 ms': r.latencyMs.p50,
      'p99 ms': r.latencyMs.p99,
      'max ms': r.latencyMs.max,
      'p99 per instance ms': r.latencyMsByInstance.map((l) => l.p99).join(' / '),
    })),
  );
}
