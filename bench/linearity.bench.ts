/**
 * `pnpm bench linearity` (issue #10): is the fold linear for any mix of known and unknown
 * ids? Content for N distinct message ids the fold never saw (a join mid-stream: each
 * synthesizes its START, becomes a message, enters the id index) against N deltas into one
 * known message, each log folded in one call (a replay). Goal: unknown ids within 3× of one
 * id at N = 30,000, and doubling N about doubles the time.
 *
 * Beside them, the floor any design pays that keeps one message object per id in an array
 * and an O(1) id index: the same N objects pushed into an array and set in a `Map`, no fold
 * at all. Its ratio to the one-id fold bounds how close to 1× the fold can get; the same
 * objects without the `Map` say how much of it is the index.
 *
 * Method: warm-up, then rounds that run the three series back to back, each timed by
 * `process.cpuUsage` (user + system: the page faults of growing arrays and tables are
 * part of the cost); the figures are the median per series, the ratio the median of the
 * rounds' own ratios, so load that shifts during the run skews both sides of a ratio alike.
 * `BENCH_QUICK=1`: N = 3,000 and a few rounds (a smoke run, figures to the temp folder).
 */
import { cpus, loadavg } from 'node:os';
import type { AGUIEvent } from '@resumable/protocol';
import { foldLog, toEnvelopes } from '@resumable/protocol';
import { quickOr, writeResults } from './lib/results.js';
import { median } from './lib/stats.js';
import { token } from './lib/tokens.js';

const start = { type: 'RUN_STARTED', threadId: 'th', runId: 'run' };

function logs(n: number) {
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  const unknown = toEnvelopes([
    start,
    ...ids.map((messageId, i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: token(i) })),
  ] as AGUIEvent[]);
  const one = toEnvelopes([
    start,
    { type: 'TEXT_MESSAGE_START', messageId: 'one', role: 'assistant' },
    ...Array.from({ length: n - 1 }, (_, i) => ({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: 'one',
      delta: token(i),
    })),
  ] as AGUIEvent[]);
  /** The floor: what keeping N messages and their index costs without any fold. */
  const floor = () => {
    const messages: object[] = [];
    const index = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      if (index.get(id) !== undefined) continue;
      index.set(id, messages.length);
      messages.push({ id, role: 'assistant', content: token(i), streaming: true });
    }
    return messages;
  };
  /** The floor without the index: N message objects in an array, nothing else. */
  const objectsOnly = () => {
    const messages: object[] = [];
    for (let i = 0; i < n; i++) {
      messages.push({ id: ids[i], role: 'assistant', content: token(i), streaming: true });
    }
    return messages;
  };
  return { unknown, one, floor, objectsOnly };
}

const cpuMs = (run: () => unknown): { total: number; system: number } => {
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return { total: (c.user + c.system) / 1000, system: c.system / 1000 };
};
const round = (n: number, digits = 3) => Number(n.toPrecision(digits));

function linearity(n: number) {
  const { unknown, one, floor, objectsOnly } = logs(n);
  // Same result as the log says, or the comparison means nothing.
  const folded = foldLog(unknown);
  if (folded.messages.length !== n || folded.synthesizedCount !== n) {
    throw new Error(`unknown ids: ${folded.messages.length} messages, expected ${n}`);
  }
  const rounds = quickOr(31, 3);
  const series = {
    unknown: () => foldLog(unknown),
    one: () => foldLog(one),
    floor,
    objectsOnly,
  };
  for (let i = 0; i < quickOr(10, 1); i++) for (const run of Object.values(series)) run();
  const t = {
    unknown: [] as number[],
    one: [] as number[],
    floor: [] as number[],
    objectsOnly: [] as number[],
  };
  const system = { unknown: 0, total: 0 };
  const ratios: number[] = [];
  const floorRatios: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const u = cpuMs(series.unknown);
    const o = cpuMs(series.one);
    const f = cpuMs(series.floor);
    t.unknown.push(u.total);
    t.one.push(o.total);
    t.floor.push(f.total);
    t.objectsOnly.push(cpuMs(series.objectsOnly).total);
    system.unknown += u.system;
    system.total += u.total;
    ratios.push(u.total / o.total);
    floorRatios.push(f.total / o.total);
  }
  return {
    n,
    unknownIdsCpuMs: round(median(t.unknown)),
    oneIdCpuMs: round(median(t.one)),
    floorCpuMs: round(median(t.floor)),
    /** The floor without its Map: what the index alone adds is floor minus this. */
    objectsOnlyCpuMs: round(median(t.objectsOnly)),
    ratio: round(median(ratios)),
    floorRatio: round(median(floorRatios)),
    /** Share of the unknown-ids time spent in the kernel (page faults of fresh memory). */
    unknownIdsSystemShare: round(system.unknown / system.total, 2),
    rounds,
  };
}

const loadBefore = loadavg()[0]!;
const N = quickOr(30_000, 3_000);
const rows = [linearity(N), linearity(N * 2)];
const doubling = round(rows[1]!.unknownIdsCpuMs / rows[0]!.unknownIdsCpuMs);
console.log(
  `\nLinearity: N unknown message ids vs N deltas to one id, one call each ` +
    `(load average ${loadBefore.toFixed(2)} on ${cpus().length} CPUs):`,
);
console.table(
  rows.map((row) => ({
    events: row.n,
    'unknown ids (ms cpu)': row.unknownIdsCpuMs,
    'one id (ms cpu)': row.oneIdCpuMs,
    ratio: `${row.ratio}×`,
    'floor: objects + Map, no fold (ms)': row.floorCpuMs,
    'floor / one id': `${row.floorRatio}×`,
    'objects only, no Map (ms)': row.objectsOnlyCpuMs,
  })),
);
const met = rows[0]!.ratio <= 3;
console.log(
  `unknown ids within 3× of one id: ${met ? 'met' : 'NOT met'} (${rows[0]!.ratio}×; the floor alone is ` +
    `${rows[0]!.floorRatio}×); 2× the events costs ${doubling}× the time.`,
);

const out = writeResults('linearity', {
  bench: 'linearity',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
  method:
    'foldLog of N+1 envelopes in one call: RUN_STARTED then N TEXT_MESSAGE_CONTENT for N distinct unknown message ids, against RUN_STARTED, TEXT_MESSAGE_START and N-1 deltas into that one message. floor: the same N message objects pushed into an array and set in a Map, no fold; objectsOnly: the floor without the Map. After warm-up, rounds run the three back to back, each timed by process.cpuUsage (user + system, GC included); figures are medians per series, ratios the median of per-round ratios.',
  rows,
  doublingCost: doubling,
  withinThreeTimes: met,
});
console.log(`figures → ${out}`);
