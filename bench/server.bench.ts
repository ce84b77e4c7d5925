/**
 * `pnpm bench server`: what the reference server costs.
 *
 * 1. Fan-out: 100 and 1,000 subscribers on one run producing 200 events/s (SQLite store).
 *    The server runs in its own process (so its RSS is its own); subscribers are plain
 *    HTTP connections in this process. Figures: delivered events/s, p50/p99 delivery
 *    latency (event produced in the agent → frame parsed by the subscriber), server RSS
 *    per idle subscriber. Goals (issue 3): p99 < 100 ms at 1,000; ≤ 64 KB per subscriber.
 * 2. SQLite append throughput: the store alone, one event per transaction and 100 per
 *    transaction (the manager's group commit), and end to end through the manager.
 *
 * Writes bench/results/server.json and prints a table.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os, { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AGUIEvent } from '@resumable/protocol';
import { EventType } from '@resumable/protocol';
import { type Agent, SqliteStore, startServer } from '@resumable/server';

const here = dirname(fileURLToPath(import.meta.url));
const RATE = 200;
const SECONDS = 5;
const FANOUTS = [100, 1000];
const now = () => performance.timeOrigin + performance.now();

interface Mem {
  rss: number;
  heapUsed: number;
  subscribers: number;
  /** Server CPU time so far, ms (user + system). */
  cpuMs: number;
}

if (process.argv.includes('--server-child')) {
  await serverChild();
} else {
  await main();
}

/** The server process: SQLite store, an agent that emits timestamped events on `go`. */
async function serverChild(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-server-'));
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
  const server = await startServer({
    port: 0,
    store: `sqlite:${join(dir, 'bench.db')}`,
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
    } else if (message.type === 'mem') {
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const m = process.memoryUsage();
      process.send?.({
        type: 'mem',
        rss: m.rss,
        heapUsed: m.heapUsed,
        subscribers: server.manager.subscriberCount(),
        cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      } satisfies Mem & { type: string });
    } else if (message.type === 'stop') {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  process.send?.({ type: 'ready', url: server.url });
}

function ask<T>(child: ChildProcess, type: string, reply: string): Promise<T> {
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

interface Subscriber {
  events: number;
  done: Promise<void>;
}

/** One SSE connection with a minimal parser: counts frames, records each frame's latency. */
function subscribe(url: string, token: string, latencies: number[], agent: http.Agent): Subscriber {
  const sub: Subscriber = { events: 0, done: Promise.resolve() };
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

async function fanout(child: ChildProcess, url: string, subscribers: number) {
  const events = RATE * SECONDS;
  await ask(child, 'arm', 'armed');
  const baseline = await ask<Mem>(child, 'mem', 'mem');
  const created = await fetch(`${url}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ messages: [], forwardedProps: { bench: { events, rate: RATE } } }),
  });
  const run = (await created.json()) as { runId: string; token: string };
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const latencies: number[] = [];
  const subs: Subscriber[] = [];
  for (let i = 0; i < subscribers; i++) {
    subs.push(subscribe(`${url}/runs/${run.runId}/events?after=0`, run.token, latencies, agent));
  }
  // Wait until every stream is open and idle (RUN_STARTED only), then weigh the server.
  let idle = baseline;
  for (let i = 0; i < 200; i++) {
    idle = await ask<Mem>(child, 'mem', 'mem');
    if (idle.subscribers >= subscribers) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (idle.subscribers < subscribers) throw new Error(`only ${idle.subscribers} subscribers open`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  idle = await ask<Mem>(child, 'mem', 'mem');
  const started = now();
  const cpuBefore = process.cpuUsage();
  child.send({ type: 'go' });
  await Promise.all(subs.map((s) => s.done));
  const elapsed = (now() - started) / 1000;
  const after = await ask<Mem>(child, 'mem', 'mem');
  const clientCpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  const delivered = subs.reduce((sum, s) => sum + s.events, 0);
  const expected = subscribers * events;
  const sorted = Float64Array.from(latencies).sort();
  return {
    subscribers,
    eventsPerSecondProduced: RATE,
    events,
    delivered,
    complete: delivered === expected,
    deliveredEventsPerSecond: Math.round(delivered / elapsed),
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted[sorted.length - 1] ?? Number.NaN),
    },
    serverCpuPercent: Math.round((after.cpuMs - idle.cpuMs) / 10 / elapsed),
    subscribersCpuPercent: Math.round((clientCpu.user + clientCpu.system) / 10_000 / elapsed),
    serverRssBytesPerSubscriber: Math.round((idle.rss - baseline.rss) / subscribers),
    serverHeapBytesPerSubscriber: Math.round((idle.heapUsed - baseline.heapUsed) / subscribers),
  };
}

async function sqliteAppends() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
  try {
    const store = new SqliteStore({ path: join(dir, 'append.db') });
    await store.createThread({ threadId: 't', token: 'x', createdAt: Date.now() });
    const json = JSON.stringify({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: 'msg-0123456789abcdef',
      delta: 'a token of text ',
    });
    const results: Record<string, number> = {};
    for (const batch of [1, 100]) {
      const runId = `run-batch-${batch}`;
      await store.createRun({ runId, threadId: 't', createdAt: Date.now(), owner: 'bench' });
      const total = batch === 1 ? 20_000 : 200_000;
      const start = performance.now();
      for (let offset = 1; offset <= total; offset += batch) {
        const events = Array.from({ length: batch }, (_, i) => ({ offset: offset + i, json }));
        await store.append(runId, events);
      }
      results[`batch${batch}`] = Math.round(total / ((performance.now() - start) / 1000));
    }
    await store.close();

    // End to end: a scripted run as fast as the manager stores it (group commit).
    const server = await startServer({ port: 0, store: `sqlite:${join(dir, 'e2e.db')}` });
    const tokens = 50_000;
    const response = await fetch(`${server.url}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messages: [{ id: 'u', role: 'user', content: 'bench' }],
        forwardedProps: { script: { tokens, tokensPerSecond: 0 } },
      }),
    });
    const { runId } = (await response.json()) as { runId: string };
    const start = performance.now();
    await server.manager.waitForRun(runId);
    const endToEnd = Math.round((tokens + 4) / ((performance.now() - start) / 1000));
    await server.close();
    return {
      storeOneEventPerTransaction: results.batch1!,
      storeHundredEventsPerTransaction: results.batch100!,
      managerEndToEnd: endToEnd,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg().map((l) => round(l));
  const child = fork(fileURLToPath(import.meta.url), ['--server-child'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  const fan = [];
  try {
    for (const n of FANOUTS) fan.push(await fanout(child, ready.url, n));
  } finally {
    child.send({ type: 'stop' });
    await once(child, 'exit');
  }
  const appends = await sqliteAppends();
  const at1000 = fan.find((f) => f.subscribers === 1000);
  const results = {
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      // Other work on the machine skews latency: recorded so figures can be read in context.
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg().map((l) => round(l)),
    },
    fanout: fan,
    sqliteAppendEventsPerSecond: appends,
    goals: {
      p99Under100msAt1000: at1000 ? at1000.latencyMs.p99 < 100 : null,
      atMost64KBPerIdleSubscriber: fan.every((f) => f.serverRssBytesPerSubscriber <= 64 * 1024),
    },
  };
  writeFileSync(join(here, 'results', 'server.json'), `${JSON.stringify(results, null, 2)}\n`);

  console.log(
    '\nFan-out: one run at 200 events/s for 5 s, SQLite store, server in its own process',
  );
  console.table(
    fan.map((f) => ({
      subscribers: f.subscribers,
      'delivered ev/s': f.deliveredEventsPerSecond,
      complete: f.complete,
      'p50 ms': f.latencyMs.p50,
      'p99 ms': f.latencyMs.p99,
      'max ms': f.latencyMs.max,
      'server CPU %': f.serverCpuPercent,
      'clients CPU %': f.subscribersCpuPercent,
      'RSS/sub KB': round(f.serverRssBytesPerSubscriber / 1024),
      'heap/sub KB': round(f.serverHeapBytesPerSubscriber / 1024),
    })),
  );
  console.log('SQLite appends (events/s)');
  console.table({
    'store, 1 event per transaction': appends.storeOneEventPerTransaction,
    'store, 100 events per transaction': appends.storeHundredEventsPerTransaction,
    'manager end to end (group commit)': appends.managerEndToEnd,
  });
  console.log(
    `Load average at start / end: ${loadAtStart.join(' ')} / ${results.machine.loadAverageAtEnd.join(' ')}`,
  );
  console.log(
    `Goals: p99 < 100 ms at 1,000 subscribers: ${results.goals.p99Under100msAt1000 ? 'met' : 'NOT met'}; ≤ 64 KB per idle subscriber: ${results.goals.atMost64KBPerIdleSubscriber ? 'met' : 'NOT met'}`,
  );
}
