/**
 * Fan-out measurement shared by server.bench.ts and redis.bench.ts: server instances in
 * processes of their own (so their RSS and CPU are theirs), one run of timestamped ticks,
 * and plain HTTP SSE subscribers in the bench process. Latency = tick produced in the
 * agent → frame parsed by a subscriber (one clock: same machine).
 *
 * A bench file is both sides: started normally it drives; forked with `INSTANCE_FLAG` it
 * calls `runInstance` and answers the driver over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AGUIEvent } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import { type Agent, startServer } from '@resumable/server';
import { latencyStats } from './stats.js';

/** Wall-clock ms with sub-ms precision, comparable across processes on this machine. */
export const now = () => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The argument a bench file is forked with to act as a server instance. */
export const INSTANCE_FLAG = '--instance';

/** A server instance's memory and CPU, as its `mem` answer reports them. */
export interface Mem {
  rss: number;
  heapUsed: number;
  subscribers: number;
  /** Server CPU time so far, ms (user + system). */
  cpuMs: number;
  /** Commands its Redis store sent so far (`RedisStore.stats`); 0 for other stores. */
  storeCommands: number;
}

// ── the instance side ────────────────────────────────────────────────────────────────

/**
 * A server instance on `store` whose agent emits `forwardedProps.bench.events` ticks at
 * `rate`/s, held until the driver sends `go` (so every subscriber is open before the
 * first). IPC: `arm` → `armed` (hold the next run), `go`, `count` → subscribers,
 * `mem` → `Mem` after two GCs (run with --expose-gc), `stop` → `onStop`, exit.
 */
export async function runInstance(
  store: NonNullable<Parameters<typeof startServer>[0]>['store'],
  onStop: () => void = () => {},
  maxConcurrentRuns = 10,
): Promise<void> {
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
      if (due > 1) await sleep(due);
      yield { type: EventType.CUSTOM, name: 'tick', value: { i, t: now() } } as AGUIEvent;
    }
  };
  const server = await startServer({
    port: 0,
    store,
    agent,
    limits: { maxSubscribersPerRun: 10_000, maxStreamsPerAddress: 10_000, maxConcurrentRuns },
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
    } else if (message.type === 'mem') {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const m = process.memoryUsage();
      const cpu = process.cpuUsage();
      process.send?.({
        type: 'mem',
        rss: m.rss,
        heapUsed: m.heapUsed,
        subscribers: server.manager.subscriberCount(),
        cpuMs: (cpu.user + cpu.system) / 1000,
        storeCommands: (server.store as { stats?: { commands: number } }).stats?.commands ?? 0,
      } satisfies Mem & { type: string });
    } else if (message.type === 'stop') {
      await server.close();
      onStop();
      process.exit(0);
    }
  });
  process.send?.({ type: 'ready', url: server.url });
}

// ── the driver side ──────────────────────────────────────────────────────────────────

export interface Instance {
  child: ChildProcess;
  url: string;
}

/** Forks `benchFile` as an instance (same node flags, `env` added) and waits until it listens. */
export async function startInstance(
  benchFile: string,
  env: Record<string, string> = {},
): Promise<Instance> {
  const child = fork(benchFile, [INSTANCE_FLAG], {
    execArgv: process.execArgv,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  return { child, url: ready.url };
}

export async function stopInstance(instance: Instance): Promise<void> {
  instance.child.send({ type: 'stop' });
  await once(instance.child, 'exit');
}

/** Sends `type` to an instance and resolves with its answer (`armed` for `arm`). */
export function ask<T>(child: ChildProcess, type: 'arm' | 'go' | 'count' | 'mem'): Promise<T> {
  const reply = type === 'arm' ? 'armed' : type;
  return new Promise((resolve) => {
    const onMessage = (message: { type: string }) => {
      if (message.type !== reply) return;
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

export interface Subscriber {
  events: number;
  /** False once an offset arrived out of order or twice. */
  inOrder: boolean;
  done: Promise<void>;
}

/** One SSE connection with a minimal parser: checks offsets, records each tick's latency. */
export function subscribe(
  url: string,
  token: string,
  latencies: number[],
  agent: http.Agent,
): Subscriber {
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

export interface FanoutOptions {
  /** The instance whose agent produces the run. */
  producer: Instance;
  /** Where the subscribers connect, split evenly (may include the producer). */
  readers: Instance[];
  subscribers: number;
  /** Ticks per second produced. */
  rate: number;
  seconds: number;
  /** Extra probes at fixed points, e.g. server memory (their time is not measured). */
  hooks?: {
    /** Armed, before the run is created. */
    beforeRun?: () => Promise<void>;
    /** Every stream open and settled, just before the first tick. */
    beforeGo?: () => Promise<void>;
    /** Every stream ended and the elapsed time taken. */
    afterDone?: () => Promise<void>;
  };
}

/** One run fanned out to `subscribers` SSE connections: what they received, how fast. */
export async function measureFanout({
  producer,
  readers,
  subscribers,
  rate,
  seconds,
  hooks = {},
}: FanoutOptions) {
  const events = rate * seconds;
  await ask(producer.child, 'arm');
  await hooks.beforeRun?.();
  const created = await fetch(`${producer.url}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [], forwardedProps: { bench: { events, rate } } }),
  });
  if (created.status !== 201) throw new Error(`POST /runs answered ${created.status}`);
  const run = (await created.json()) as { runId: string; token: string };
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const perReader = readers.map(() => ({ latencies: [] as number[], subs: [] as Subscriber[] }));
  const share = subscribers / readers.length;
  readers.forEach((reader, r) => {
    const { latencies, subs } = perReader[r]!;
    for (let i = 0; i < share; i++) {
      const url = `${reader.url}/runs/${run.runId}/events?after=0`;
      subs.push(subscribe(url, run.token, latencies, agent));
    }
  });
  // Every stream open (bounded wait) before the first tick.
  for (const reader of readers) {
    for (let i = 0; i < 400; i++) {
      const { subscribers: open } = await ask<{ subscribers: number }>(reader.child, 'count');
      if (open >= share) break;
      if (i === 399) throw new Error(`only ${open} of ${share} streams opened`);
      await sleep(50);
    }
  }
  await sleep(300);
  await hooks.beforeGo?.();
  const started = now();
  producer.child.send({ type: 'go' });
  const all = perReader.flatMap((p) => p.subs);
  await Promise.all(all.map((s) => s.done));
  const elapsedSeconds = (now() - started) / 1000;
  await hooks.afterDone?.();
  agent.destroy();
  const delivered = all.reduce((sum, s) => sum + s.events, 0);
  return {
    events,
    /** Ticks every subscriber should have received, all together. */
    expected: subscribers * events,
    delivered,
    /** Every subscriber saw offsets 1..N, each once, in order. */
    inOrder: all.every((s) => s.inOrder),
    elapsedSeconds,
    deliveredEventsPerSecond: Math.round(delivered / elapsedSeconds),
    latencyMs: latencyStats(perReader.flatMap((p) => p.latencies)),
    latencyMsByReader: perReader.map((p) => latencyStats(p.latencies)),
  };
}
