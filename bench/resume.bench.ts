/**
 * `pnpm bench resume`: what a resume costs.
 *
 * 1. A 5,000-token run is cut at 90%. Ours resumes with `after=<offset>` (the persisted
 *    resume point); the peers' way (LangGraph `reconnectOnMount`, Vercel's resume,
 *    Cloudflare's agents) replays from offset 0. Both through the same `RunSession` on the
 *    same server: bytes on the wire and time until caught up (terminal event applied).
 * 2. IndexedDB record writes per second while a run streams (goal ≤ 4).
 *
 * Writes bench/results/resume.json and prints a table. `BENCH_QUICK=1`: one resume of
 * each kind instead of 7, a smoke run whose figures go to the temp folder (lib/results.ts).
 */
import 'fake-indexeddb/auto';
import { createIndexedDbStorage, type RecordStorage, RunSession } from '@resumable/hooks/core';
import type { Envelope } from '@resumable/protocol';
import { encodeFrame } from '@resumable/protocol';
import { startServer } from '@resumable/server';
import { quickOr, writeResults } from './lib/results.js';
import { post, readLog, storageAt, waitUntil } from './lib/runs.js';
import { median } from './lib/stats.js';

const TOKENS = 5000;
const CUT = 0.9;
const REPEATS = quickOr(7, 1);

const server = await startServer({ port: 0, store: 'memory' });

/** A session resuming from a record at `from`; resolves with bytes read and ms to caught up. */
async function resumeFrom(
  log: Envelope[],
  from: number,
  ids: { runId: string; threadId: string; token: string },
): Promise<{ bytes: number; ms: number; text: number }> {
  const storage = await storageAt(log, from, ids, 'bench');
  const session = new RunSession({
    endpoint: server.url,
    key: 'bench',
    storage,
    onWarning: () => {},
  });
  const t0 = performance.now();
  const release = session.retain();
  await waitUntil(() => session.getState().status === 'finished');
  const ms = performance.now() - t0;
  const bytes = session.bytesReceived;
  const text = String(session.getState().messages.at(-1)?.content ?? '').length;
  release();
  await session.dispose();
  return { bytes, ms, text };
}

// ── 1. resume cost after a drop at 90% ──────────────────────────────────────────────────
const started = await post(server.url, {
  messages: [{ id: 'u', role: 'user', content: 'a long answer please' }],
  forwardedProps: { script: { tokens: TOKENS, tokensPerSecond: 0, seed: 1 } },
});
const log = await readLog(server.url, started.runId, started.token);
const total = log.length;
const cutAt = Math.floor(total * CUT);
const wholeBytes = log.reduce((n, e) => n + Buffer.byteLength(encodeFrame(e)), 0);
const missingBytes = log.slice(cutAt).reduce((n, e) => n + Buffer.byteLength(encodeFrame(e)), 0);

const ours: { bytes: number; ms: number; text: number }[] = [];
const replay: { bytes: number; ms: number; text: number }[] = [];
for (let i = 0; i < REPEATS; i++) {
  ours.push(await resumeFrom(log, cutAt, started));
  replay.push(await resumeFrom(log, 0, started));
}
if (new Set([...ours, ...replay].map((r) => r.text)).size !== 1) {
  throw new Error('bench: the two resumes ended with different texts');
}

// ── 2. record writes per second while streaming ─────────────────────────────────────────
const live = await post(server.url, {
  messages: [{ id: 'u2', role: 'user', content: 'stream please' }],
  forwardedProps: { script: { tokens: 1200, tokensPerSecond: 400, seed: 2 } },
});
let idbWrites = 0;
const writeTimes: number[] = [];
const idb = createIndexedDbStorage({ dbName: 'bench' });
const counting: RecordStorage = {
  kind: 'indexeddb',
  get: (key) => idb.get(key),
  update: (key, updater) => {
    idbWrites++;
    writeTimes.push(performance.now());
    return idb.update(key, updater);
  },
  delete: (key) => idb.delete(key),
};
const streaming = new RunSession({
  endpoint: server.url,
  key: 'live',
  storage: counting,
  onWarning: () => {},
});
const release = streaming.retain();
const liveStart = performance.now();
await streaming.attach({ ...live, token: live.token });
await waitUntil(() => streaming.getState().status === 'finished');
const liveSeconds = (performance.now() - liveStart) / 1000;
const liveEvents = streaming.getState().connection.offset;
release();
await streaming.dispose();
await server.close();

// While streaming: the writes from the first (the run's identity, written before its first
// event) to the last throttled one; the terminal flush that ends the stream must not wait,
// so it is reported apart (it can follow a throttled write within 250 ms).
const streamingTimes = writeTimes.slice(0, -1);
const streamingSpan = (streamingTimes.at(-1)! - streamingTimes[0]!) / 1000;
const writesPerSecond = (streamingTimes.length - 1) / streamingSpan;
let maxInOneSecond = 0;
for (let i = 0; i < writeTimes.length; i++) {
  let n = 0;
  while (i + n < writeTimes.length && writeTimes[i + n]! - writeTimes[i]! < 1000) n++;
  maxInOneSecond = Math.max(maxInOneSecond, n);
}

const oursBytes = median(ours.map((r) => r.bytes));
const replayBytes = median(replay.map((r) => r.bytes));
const result = {
  bench: 'resume',
  date: new Date().toISOString(),
  node: process.version,
  run: {
    tokens: TOKENS,
    events: total,
    cutAtOffset: cutAt,
    wholeLogBytes: wholeBytes,
    missingBytes,
  },
  repeats: REPEATS,
  ours: {
    how: 'GET /runs/:id/events?after=<persisted offset>',
    bytes: oursBytes,
    msToCaughtUp: Number(median(ours.map((r) => r.ms)).toFixed(1)),
    bytesOverMissing: Number((oursBytes / missingBytes).toFixed(3)),
  },
  fullReplay: {
    how: 'GET /runs/:id/events?after=0 (LangGraph reconnectOnMount, Vercel resume, Cloudflare agents)',
    bytes: replayBytes,
    msToCaughtUp: Number(median(replay.map((r) => r.ms)).toFixed(1)),
    bytesOverMissing: Number((replayBytes / missingBytes).toFixed(3)),
  },
  savings: {
    bytes: Number((replayBytes / oursBytes).toFixed(2)),
    time: Number((median(replay.map((r) => r.ms)) / median(ours.map((r) => r.ms))).toFixed(2)),
  },
  goals: { bytesOverMissingAtMost: 1.1, met: oursBytes / missingBytes <= 1.1 },
  persistence: {
    events: liveEvents,
    seconds: Number(liveSeconds.toFixed(2)),
    eventsPerSecond: Number((liveEvents / liveSeconds).toFixed(0)),
    idbWrites,
    idbWritesPerSecondWhileStreaming: Number(writesPerSecond.toFixed(2)),
    idbWritesPerSecondIncludingTerminalFlush: Number((idbWrites / liveSeconds).toFixed(2)),
    maxWritesInAnyOneSecondWindow: maxInOneSecond,
    goalAtMost: 4,
    met: writesPerSecond <= 4,
  },
};
writeResults('resume', result);

console.table({
  'ours (after=offset)': {
    bytes: oursBytes,
    'ms to caught up': result.ours.msToCaughtUp,
    '× missing part': result.ours.bytesOverMissing,
  },
  'full replay (after=0)': {
    bytes: replayBytes,
    'ms to caught up': result.fullReplay.msToCaughtUp,
    '× missing part': result.fullReplay.bytesOverMissing,
  },
});
console.log(
  `missing part ${missingBytes} B of ${wholeBytes} B; IndexedDB writes while streaming: ` +
    `${idbWrites} in ${result.persistence.seconds} s (${liveEvents} events): ` +
    `${result.persistence.idbWritesPerSecondWhileStreaming}/s while streaming (goal ≤ 4), ` +
    `plus the terminal flush; at most ${maxInOneSecond} in any 1 s window`,
);
if (!result.goals.met || !result.persistence.met) process.exitCode = 1;
