/**
 * `pnpm bench linearity` (issue #10): is the fold linear for any mix of known and unknown
 * ids? Content for N distinct message ids the fold never saw (a join mid-stream: each
 * synthesizes its START, becomes a message, enters the id index) against N deltas into one
 * known message, each log folded in one call (a replay). Goal: unknown ids within 3× of one
 * id at N = 30,000, and doubling N about doubles the time.
 *
 * Beside them, the floor any design pays that keeps one message object per id in an array
 * and an O(1) id index: the log's N deltas put in N message objects, pushed into an array
 * and set in a `Map`, no fold at all. The same objects without the `Map` say how much of it
 * is the index.
 *
 * Method. A fold of 30k events takes a few ms, and what the heap holds when it starts moves
 * that by several times, so each series is timed apart from the others' garbage, twice:
 * - `settled` (the goal figure): before every timed call a full collection, one untimed call
 *   of the same series, a minor collection and a 10 ms pause (`pnpm bench` passes
 *   `--expose-gc`), so each call starts with both generations clean, no collection of
 *   another series' garbage pending, and its code optimized, and pays only for what it
 *   does (with the minor collections its own allocation triggers). The untimed call is
 *   needed because a full `gc()` also drops V8's optimized code for the fold ("marking
 *   dependent code … reason: weak objects"): timed straight after one, every call ran
 *   unoptimized first and re-optimized, which measured the compiler (a one-id fold of
 *   2.3 ms took 10–27 ms). With a minor collection alone the unknown-ids figure changed
 *   from one process to the next (15 or 25–36 ms): old-generation garbage piles up, and
 *   (likely) background GC threads, which `process.cpuUsage` counts, ran in some calls.
 * - `batched`: no forced collection; k calls of one series back to back, timed together
 *   and divided by k, so each series also pays the collections its own garbage causes
 *   (what a long-lived client pays) and the previous series' leftovers are spread over k.
 * Each call is timed by `process.cpuUsage` (user + system of the process: the page faults
 * of fresh memory and the GC helper threads are part of the cost). Series take turns
 * (rotated each settled round) so load that shifts during the run skews all of them
 * alike; figures are medians over the rounds, ratios the median of the rounds' ratios.
 * `BENCH_QUICK=1`: N = 3,000 and a few rounds (a smoke run, figures to the temp folder).
 */
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AGUIEvent } from '@resumable/protocol';
import { foldLog, toEnvelopes } from '@resumable/protocol';
import { quickOr, writeResults } from './lib/results.js';
import { median } from './lib/stats.js';
import { token } from './lib/tokens.js';

const exposedGc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
if (exposedGc === undefined) throw new Error('run with node --expose-gc (pnpm bench does)');
const gc = exposedGc;

const start = { type: 'RUN_STARTED', threadId: 'th', runId: 'run' };
type Series = 'unknown' | 'one' | 'floor' | 'objectsOnly';
const SERIES: readonly Series[] = ['unknown', 'one', 'floor', 'objectsOnly'];

function logs(n: number): Record<Series, () => unknown> {
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  const deltas = Array.from({ length: n }, (_, i) => token(i));
  const unknown = toEnvelopes([
    start,
    ...ids.map((messageId, i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: deltas[i] })),
  ] as AGUIEvent[]);
  const one = toEnvelopes([
    start,
    { type: 'TEXT_MESSAGE_START', messageId: 'one', role: 'assistant' },
    ...deltas.slice(1).map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'one', delta })),
  ] as AGUIEvent[]);
  // Same result as the log says, or the comparison means nothing.
  const folded = foldLog(unknown);
  if (folded.messages.length !== n || folded.synthesizedCount !== n) {
    throw new Error(`unknown ids: ${folded.messages.length} messages, expected ${n}`);
  }
  return {
    unknown: () => foldLog(unknown),
    one: () => foldLog(one),
    /** The floor: what keeping N messages and their index costs without any fold. */
    floor: () => {
      const messages: object[] = [];
      const index = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        if (index.get(id) !== undefined) continue;
        index.set(id, messages.length);
        messages.push({ id, role: 'assistant', content: deltas[i], streaming: true });
      }
      return messages;
    },
    /** The floor without the index: N message objects in an array, nothing else. */
    objectsOnly: () => {
      const messages: object[] = [];
      for (let i = 0; i < n; i++) {
        messages.push({ id: ids[i], role: 'assistant', content: deltas[i], streaming: true });
      }
      return messages;
    },
  };
}

const cpuMs = (run: () => unknown, k: number): number => {
  const c0 = process.cpuUsage();
  for (let i = 0; i < k; i++) run();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / k;
};
const round = (n: number, digits = 3) => Number(n.toPrecision(digits));
const emptyTimes = () =>
  Object.fromEntries(SERIES.map((name) => [name, [] as number[]])) as Record<Series, number[]>;

/** Medians per series, and the medians of the rounds' unknown/one and floor/one ratios. */
function summary(t: Record<Series, number[]>, n: number) {
  const perRound = (a: number[], b: number[]) => round(median(a.map((x, i) => x / b[i]!)));
  const [unknown, one, floor] = [median(t.unknown), median(t.one), median(t.floor)];
  return {
    unknownIdsCpuMs: round(unknown),
    oneIdCpuMs: round(one),
    floorCpuMs: round(floor),
    /** The floor without its Map: what the index alone adds is floor minus this. */
    objectsOnlyCpuMs: round(median(t.objectsOnly)),
    ratio: perRound(t.unknown, t.one),
    floorRatio: perRound(t.floor, t.one),
    /** What the fold adds per new id beyond one id's per-event cost and the floor (ns). */
    unknownBeyondOneAndFloorNsPerId: round(((unknown - one - floor) * 1e6) / n),
  };
}

async function linearity(n: number) {
  const series = logs(n);
  for (let i = 0; i < quickOr(10, 1); i++) for (const name of SERIES) series[name]();
  const rounds = quickOr(31, 3);
  const settled = emptyTimes();
  for (let r = 0; r < rounds; r++) {
    for (let s = 0; s < SERIES.length; s++) {
      // Rotate the order each round, so no series always follows the same one.
      const name = SERIES[(r + s) % SERIES.length]!;
      // A full collection, so no old-generation work is pending to run inside the call; it
      // also drops the fold's optimized code, so one untimed call re-optimizes it; then a
      // minor collection empties the young generation again.
      gc({ type: 'major' });
      series[name]();
      gc({ type: 'minor' });
      await sleep(10);
      settled[name].push(cpuMs(series[name], 1));
    }
  }
  const k = quickOr(8, 2);
  const batchedRounds = quickOr(15, 2);
  const batched = emptyTimes();
  for (let r = 0; r < batchedRounds; r++) {
    for (const name of SERIES) batched[name].push(cpuMs(series[name], k));
  }
  return {
    n,
    settled: { ...summary(settled, n), rounds },
    batched: { ...summary(batched, n), rounds: batchedRounds, callsPerBatch: k },
  };
}

const loadBefore = loadavg()[0]!;
const N = quickOr(30_000, 3_000);
const rows = [await linearity(N), await linearity(N * 2)];
const doubling = round(rows[1]!.settled.unknownIdsCpuMs / rows[0]!.settled.unknownIdsCpuMs);
const doublingBatched = round(rows[1]!.batched.unknownIdsCpuMs / rows[0]!.batched.unknownIdsCpuMs);
console.log(
  `\nLinearity: N unknown message ids vs N deltas to one id, one call each ` +
    `(load average ${loadBefore.toFixed(2)} on ${cpus().length} CPUs):`,
);
console.table(
  rows.flatMap((row) =>
    (['settled', 'batched'] as const).map((method) => {
      const m = row[method];
      return {
        events: row.n,
        method,
        'unknown ids (ms cpu)': m.unknownIdsCpuMs,
        'one id (ms cpu)': m.oneIdCpuMs,
        ratio: `${m.ratio}×`,
        'floor: objects + Map (ms)': m.floorCpuMs,
        'floor / one id': `${m.floorRatio}×`,
        'objects only (ms)': m.objectsOnlyCpuMs,
        'fold beyond one id + floor (ns/id)': m.unknownBeyondOneAndFloorNsPerId,
      };
    }),
  ),
);
const goal = rows[0]!.settled;
const met = goal.ratio <= 3;
console.log(
  `unknown ids within 3× of one id (settled heap): ${met ? 'met' : 'NOT met'} (${goal.ratio}×; ` +
    `the floor alone is ${goal.floorRatio}×; batched: ${rows[0]!.batched.ratio}×); ` +
    `2× the events costs ${doubling}× the time (batched: ${doublingBatched}×).`,
);

const out = writeResults('linearity', {
  bench: 'linearity',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
  method:
    'foldLog of N+1 envelopes in one call: RUN_STARTED then N TEXT_MESSAGE_CONTENT for N distinct unknown message ids, against RUN_STARTED, TEXT_MESSAGE_START and N-1 deltas into that one message. floor: the log’s N deltas in N message objects pushed into an array and set in a Map, no fold; objectsOnly: the floor without the Map. Each call timed by process.cpuUsage (user + system, GC threads included). settled (the goal figure): before every timed call a full gc, one untimed call of the same series (a full gc discards the fold’s optimized code; timed right after one, a call measures re-optimization), a minor gc and a 10 ms pause; series rotated each round, so no call pays for another series’ garbage. batched: no forced collection, k calls of one series back to back timed together and divided by k. Figures are medians over rounds, ratios the median of per-round ratios; fold beyond one id + floor = (unknown − one − floor) / N.',
  rows,
  doublingCost: doubling,
  doublingCostBatched: doublingBatched,
  withinThreeTimes: met,
});
console.log(`figures → ${out}`);
