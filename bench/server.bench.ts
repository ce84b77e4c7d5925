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
 * Writes bench/results/server.json and prints a table. `BENCH_QUICK=1`: 10 and 20
 * subscribers for 1 s and small append counts, a smoke run whose figures go to the temp
 * folder (see lib/results.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore, startServer } from '@resumable/server';
import {
  ask,
  INSTANCE_FLAG,
  type Instance,
  type Mem,
  measureFanout,
  runInstance,
  startInstance,
  stopInstance,
} from './lib/fanout.js';
import { quickOr, writeResults } from './lib/results.js';
import { post } from './lib/runs.js';
import { latencyColumns, round1 } from './lib/stats.js';

const RATE = 200;
const SECONDS = quickOr(5, 1);
const FANOUTS = quickOr([100, 1000], [10, 20]);

if (process.argv.includes(INSTANCE_FLAG)) {
  // The server process: a SQLite store of its own, removed on stop.
  const dir = mkdtempSync(join(tmpdir(), 'bench-server-'));
  await runInstance(`sqlite:${join(dir, 'bench.db')}`, () =>
    rmSync(dir, { recursive: true, force: true }),
  );
} else {
  await main();
}

async function fanout(server: Instance, subscribers: number) {
  let baseline!: Mem;
  let idle!: Mem;
  let after!: Mem;
  let cpuBefore!: NodeJS.CpuUsage;
  let clientCpu!: NodeJS.CpuUsage;
  const m = await measureFanout({
    producer: server,
    readers: [server],
    subscribers,
    rate: RATE,
    seconds: SECONDS,
    hooks: {
      beforeRun: async () => {
        baseline = await ask<Mem>(server.child, 'mem');
      },
      // Every stream open and idle (RUN_STARTED only): weigh the server.
      beforeGo: async () => {
        idle = await ask<Mem>(server.child, 'mem');
        cpuBefore = process.cpuUsage();
      },
      afterDone: async () => {
        after = await ask<Mem>(server.child, 'mem');
        clientCpu = process.cpuUsage(cpuBefore);
      },
    },
  });
  const elapsed = m.elapsedSeconds;
  return {
    subscribers,
    eventsPerSecondProduced: RATE,
    events: m.events,
    delivered: m.delivered,
    complete: m.delivered === m.expected,
    deliveredEventsPerSecond: m.deliveredEventsPerSecond,
    latencyMs: m.latencyMs,
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
      const total = batch === 1 ? quickOr(20_000, 200) : quickOr(200_000, 2_000);
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
    const tokens = quickOr(50_000, 500);
    const { runId } = await post(server.url, {
      messages: [{ id: 'u', role: 'user', content: 'bench' }],
      forwardedProps: { script: { tokens, tokensPerSecond: 0 } },
    });
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

async function main(): Promise<void> {
  const loadAtStart = os.loadavg().map(round1);
  const server = await startInstance(fileURLToPath(import.meta.url));
  const fan = [];
  try {
    for (const n of FANOUTS) fan.push(await fanout(server, n));
  } finally {
    await stopInstance(server);
  }
  const appends = await sqliteAppends();
  const at1000 = fan.find((f) => f.subscribers === 1000);
  const results = {
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      // Other work on the machine skews latency: recorded so figures can be read in context.
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg().map(round1),
    },
    fanout: fan,
    sqliteAppendEventsPerSecond: appends,
    goals: {
      p99Under100msAt1000: at1000 ? at1000.latencyMs.p99 < 100 : null,
      atMost64KBPerIdleSubscriber: fan.every((f) => f.serverRssBytesPerSubscriber <= 64 * 1024),
    },
  };
  writeResults('server', results);

  console.log(
    `\nFan-out: one run at ${RATE} events/s for ${SECONDS} s, SQLite store, server in its own process`,
  );
  console.table(
    fan.map((f) => ({
      subscribers: f.subscribers,
      'delivered ev/s': f.deliveredEventsPerSecond,
      complete: f.complete,
      ...latencyColumns(f.latencyMs),
      'server CPU %': f.serverCpuPercent,
      'clients CPU %': f.subscribersCpuPercent,
      'RSS/sub KB': round1(f.serverRssBytesPerSubscriber / 1024),
      'heap/sub KB': round1(f.serverHeapBytesPerSubscriber / 1024),
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
