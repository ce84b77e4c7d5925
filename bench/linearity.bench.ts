/**
 * `pnpm bench linearity` (issue #10): is the fold linear for any mix of known and unknown
 * ids? Content for N distinct message ids the fold never saw (a join mid-stream: each
 * synthesizes its START, becomes a message, enters the id index) against N deltas into one
 * known message, each log folded in one call (a replay). Goal: unknown ids within 3× of one
 * id at N = 30,000, and doubling N about doubles the time.
 *
 * The input is what a client gets: each event's SSE `data:` text decoded by the client's
 * own `decodeEnvelope` (JSON.parse), afresh for every call, untimed — so ids are fresh
 * strings the fold must hash, as in a real replay (a log parsed once and folded again would
 * carry its hashes from the previous call). Ids are the server's (`msg-<run id>-<n>`, 45+
 * characters, left as fresh strings by JSON.parse); a second row uses short ids (`m<n>`,
 * which JSON.parse internalizes: hashed while parsing, compared by pointer).
 *
 * Beside them, what keeping one message per id costs without any fold: `floor` puts the
 * log's N ids and deltas in N message objects, the fold's own index (`IdIndex`, 32 sampled-hash tables)
 * and its chunked message list; `floorOneMap` does it with one V8 Map and one array grown
 * by push (the previous design, whose growth past 4k entries / 16k elements reallocates as
 * large objects on fresh pages); `objectsOnly` is the objects in an array, no index.
 *
 * Method. A fold of 30k events takes a few ms, and what the heap holds when it starts moves
 * that by several times, so each series is timed apart from the others' garbage, twice:
 * - `settled` (the goal figure): each series in processes of its own, a few rounds per
 *   process (`lib/linearity-settled.ts`); before every timed call a full collection, three
 *   untimed calls of the same series, a minor collection and a 10 ms pause (`--expose-gc`),
 *   so each call starts with both generations clean and its code optimized, in a heap
 *   sized by its own series only, and pays only for what it does (with the minor
 *   collections its own allocation triggers). The untimed calls (three) are needed because
 *   a full `gc()` also drops V8's optimized code for the fold ("marking dependent code …
 *   reason: weak objects"): timed straight after one, every call ran unoptimized first and
 *   re-optimized, which measured the compiler. The full collection is `gc()`: Node 20's
 *   `gc({ type: 'major' })` runs a scavenge (`--trace-gc`).
 * - `batched`: no forced collection; k calls of one series back to back (each on its own
 *   freshly decoded log), timed together and divided by k, so each series also pays the
 *   collections its own garbage causes (what a long-lived client pays).
 * Fresh pages. V8 pretenures the unknown-id fold's N message objects (56 B each; they
 *   outlive every scavenge of the untimed calls) into the old space; a call that finds no
 *   room there maps ~1.8 MB of new pages (~470 minor faults, +7–10 ms on this VM, against
 *   the result array's ~60 otherwise). Until this bench ran each series in its own process,
 *   the series took turns in one: V8 had sized the old space for whichever ran before, and
 *   23 of 25 settled calls of the unknown-id fold paid to regrow it (5–6.5× one id; two
 *   series alternating gave 60, 474, 115, 475, … faults; the fold alone, 60 every call).
 *   The memory is still the client's to pay once (without pretenuring, when a scavenge
 *   promotes the messages): `cold` and `batched` keep it. Each call's minor page faults are
 *   recorded and the settled figures are also given split by them (`unknownByRoom`,
 *   `floorByRoom`: calls within twice the result array's pages + 32, or beyond).
 * Each call is timed by `process.cpuUsage` (user + system of the process: the page faults
 * of fresh memory and the GC helper threads are part of the cost). Series take turns
 * (rotated each settled chunk of rounds) so load that shifts during the run skews all of
 * them alike; figures are medians over the rounds, ratios the median of the rounds' ratios.
 * `cold` (beside the goal figure, not instead of it): each call the first fold of a fresh
 * process, as a page load's join runs — code not yet optimized, no earlier calls'
 * pretenuring feedback. The bench also records what one minor page fault costs this
 * machine (`pageFaultMicros`), which prices the fresh-pages effect above.
 * `BENCH_QUICK=1`: N = 3,000 and a few rounds (a smoke run, figures to the temp folder).
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import type { Ids } from './lib/linearity-logs.js';
import { pageFaultMicros } from './lib/linearity-logs.js';
import type { Series } from './lib/linearity-series.js';
import { cpuMs, logs, SERIES } from './lib/linearity-series.js';
import { quickOr, writeResults } from './lib/results.js';
import { median } from './lib/stats.js';

const round = (n: number, digits = 3) => Number(n.toPrecision(digits));
const emptyTimes = () =>
  Object.fromEntries(SERIES.map((name) => [name, [] as number[]])) as Record<Series, number[]>;

/**
 * The settled calls of `series` split by whether the old generation had room for the call's
 * message objects (V8 pretenures them: they outlive every scavenge) or had to grow onto
 * freshly mapped pages. A call that keeps N messages maps at least its result array (8 B per
 * message, a large object); one that grows the old space maps ~56 B per message more.
 */
function byRoom(t: number[], f: number[], n: number) {
  const roomPages = Math.ceil((n * 8) / 4096) * 2 + 32;
  const room = t.filter((_, i) => f[i]! <= roomPages);
  const grew = t.filter((_, i) => f[i]! > roomPages);
  return {
    roomCpuMs: room.length > 0 ? round(median(room)) : null,
    roomCalls: room.length,
    grewCpuMs: grew.length > 0 ? round(median(grew)) : null,
    grewCalls: grew.length,
  };
}

/** Medians per series, and the medians of the rounds' unknown/one and floor/one ratios. */
function summary(t: Record<Series, number[]>, n: number) {
  const perRound = (a: number[], b: number[]) => round(median(a.map((x, i) => x / b[i]!)));
  const [unknown, one, floor] = [median(t.unknown), median(t.one), median(t.floor)];
  return {
    unknownIdsCpuMs: round(unknown),
    oneIdCpuMs: round(one),
    floorCpuMs: round(floor),
    floorOneMapCpuMs: round(median(t.floorOneMap)),
    objectsOnlyCpuMs: round(median(t.objectsOnly)),
    ratio: perRound(t.unknown, t.one),
    floorRatio: perRound(t.floor, t.one),
    /** What the fold adds per new id beyond one id's per-event cost and the floor (ns). */
    unknownBeyondOneAndFloorNsPerId: round(((unknown - one - floor) * 1e6) / n),
  };
}

const SETTLED = new URL('./lib/linearity-settled.ts', import.meta.url).pathname;

/**
 * `settled`: each series in processes of its own (`lib/linearity-settled.ts`), a few rounds
 * each, the series taking turns process by process (rotated each chunk) so load that shifts
 * during the run skews all of them alike; round i of one series is paired with round i of
 * another for the ratios.
 */
function settledRounds(n: number, ids: Ids) {
  // 3 processes of 8 rounds per series: each process costs a second or two of start-up.
  const chunks = quickOr(3, 1);
  const perChunk = quickOr(8, 3);
  const settled = emptyTimes();
  const faults = emptyTimes();
  for (let c = 0; c < chunks; c++) {
    for (let s = 0; s < SERIES.length; s++) {
      const name = SERIES[(c + s) % SERIES.length]!;
      const child = spawnSync(
        process.execPath,
        [
          '--expose-gc',
          '--conditions=@resumable/source',
          '--import',
          'tsx',
          SETTLED,
          name,
          String(n),
          ids,
          String(perChunk),
          String(quickOr(5, 1)),
        ],
        { encoding: 'utf8', timeout: 300_000 },
      );
      if (child.status !== 0) throw new Error(`settled ${name} failed: ${child.stderr}`);
      const out = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
        ms: number[];
        faults: number[];
      };
      settled[name].push(...out.ms);
      faults[name].push(...out.faults);
    }
  }
  return { settled, faults, rounds: chunks * perChunk };
}

function linearity(n: number, ids: Ids) {
  const { settled, faults, rounds } = settledRounds(n, ids);
  const { run, logOf } = logs(n, ids);
  const k = quickOr(4, 2);
  const batchedRounds = quickOr(12, 2);
  const batched = emptyTimes();
  for (let r = 0; r < batchedRounds; r++) {
    for (const name of SERIES) {
      const batch = Array.from({ length: k }, () => logOf(name));
      batched[name].push(cpuMs(() => batch.map((log) => run[name](log)), k));
    }
  }
  const unknownByRoom = byRoom(settled.unknown, faults.unknown, n);
  const one = median(settled.one);
  return {
    n,
    ids,
    settled: {
      ...summary(settled, n),
      rounds,
      /** Median minor page faults per call, per series. */
      pageFaults: Object.fromEntries(SERIES.map((name) => [name, median(faults[name])])),
      unknownByRoom,
      /** Unknown ids in the calls whose old space had room, against the one-id median. */
      ratioWithRoom: unknownByRoom.roomCpuMs === null ? null : round(unknownByRoom.roomCpuMs / one),
      floorByRoom: byRoom(settled.floor, faults.floor, n),
    },
    batched: { ...summary(batched, n), rounds: batchedRounds, callsPerBatch: k },
  };
}

const COLD = new URL('./lib/linearity-cold.ts', import.meta.url).pathname;

/**
 * `cold`: each call in a fresh process (`lib/linearity-cold.ts`), the two series taking
 * turns — what a page load's join pays: the fold's code not yet optimized (both series
 * compile the same fold; the unknown ids run more of it), the heap young and no earlier
 * call's pretenuring feedback.
 */
function cold(n: number, ids: Ids) {
  const rounds = quickOr(15, 2);
  const t = { unknown: [] as number[], one: [] as number[] };
  const f = { unknown: [] as number[], one: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const series of ['unknown', 'one'] as const) {
      const child = spawnSync(
        process.execPath,
        ['--conditions=@resumable/source', '--import', 'tsx', COLD, series, String(n), ids],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (child.status !== 0) throw new Error(`cold ${series} fold failed: ${child.stderr}`);
      const call = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as {
        ms: number;
        faults: number;
      };
      t[series].push(call.ms);
      f[series].push(call.faults);
    }
  }
  return {
    unknownIdsCpuMs: round(median(t.unknown)),
    oneIdCpuMs: round(median(t.one)),
    ratio: round(median(t.unknown.map((x, i) => x / t.one[i]!))),
    rounds,
    pageFaults: { unknown: median(f.unknown), one: median(f.one) },
  };
}

const loadBefore = loadavg()[0]!;
const N = quickOr(30_000, 3_000);
const rows = [linearity(N, 'server'), linearity(N * 2, 'server'), linearity(N, 'short')];
const faultMicros = round(pageFaultMicros());
const colds = [cold(N, 'server'), cold(N * 2, 'server')];
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
        ids: row.ids,
        method,
        'unknown ids (ms cpu)': m.unknownIdsCpuMs,
        'one id (ms cpu)': m.oneIdCpuMs,
        ratio: `${m.ratio}×`,
        'floor (ms)': m.floorCpuMs,
        'floor / one id': `${m.floorRatio}×`,
        'floor, one Map (ms)': m.floorOneMapCpuMs,
        'objects only (ms)': m.objectsOnlyCpuMs,
        'fold beyond one id + floor (ns/id)': m.unknownBeyondOneAndFloorNsPerId,
      };
    }),
  ),
);
console.log("Cold: each call the first fold of a fresh process (a page load's join):");
console.table(
  colds.map((c, i) => ({
    events: N * (i + 1),
    ids: 'server',
    'unknown ids (ms cpu)': c.unknownIdsCpuMs,
    'one id (ms cpu)': c.oneIdCpuMs,
    ratio: `${c.ratio}×`,
    'page faults (unknown / one)': `${c.pageFaults.unknown} / ${c.pageFaults.one}`,
  })),
);
const goal = rows[0]!.settled;
const met = goal.ratio <= 3;
const split = (b: ReturnType<typeof byRoom>) =>
  `${b.roomCpuMs ?? '–'} ms in ${b.roomCalls} calls with room, ${b.grewCpuMs ?? '–'} ms in ${b.grewCalls} that grew it`;
console.log(
  `${N} server ids, settled, by old-space room (page faults per call: fold ${goal.pageFaults.unknown}, ` +
    `floor ${goal.pageFaults.floor}, one id ${goal.pageFaults.one}): fold ${split(goal.unknownByRoom)}; ` +
    `floor ${split(goal.floorByRoom)}; one id ${goal.oneIdCpuMs} ms; with room: ${goal.ratioWithRoom ?? '–'}×.`,
);
console.log(
  `unknown ids within 3× of one id (server ids, settled heap): ${met ? 'met' : 'NOT met'} ` +
    `(${goal.ratio}×; the floor alone is ${goal.floorRatio}×; batched: ${rows[0]!.batched.ratio}×; ` +
    `short ids: ${rows[2]!.settled.ratio}×); 2× the events costs ${doubling}× the time ` +
    `(batched: ${doublingBatched}×).`,
);

console.log(
  `cold (fresh process, server ids): ${colds[0]!.ratio}×; 2× the events costs ` +
    `${round(colds[1]!.unknownIdsCpuMs / colds[0]!.unknownIdsCpuMs)}× the time. One minor page ` +
    `fault costs ${faultMicros} µs of CPU on this machine.`,
);

const out = writeResults('linearity', {
  bench: 'linearity',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cpus: cpus().length,
  loadAverage: { before: round(loadBefore), after: round(loadavg()[0]!) },
  method:
    "foldLog of N+1 envelopes in one call: RUN_STARTED then N TEXT_MESSAGE_CONTENT for N distinct unknown message ids, against RUN_STARTED, TEXT_MESSAGE_START and N-1 deltas into that one message. Every call folds its own copy of the log decoded from the SSE data texts by decodeEnvelope (JSON.parse, what a client runs), untimed, so ids are fresh strings as in a real replay. ids: server = msg-<run id>-<n> (the server’s, 45+ characters, not internalized by JSON.parse), short = m<n> (internalized by JSON.parse). floor: the decoded log’s ids and deltas in N message objects, the fold’s IdIndex (32 sampled-hash tables) and its chunked message list, no fold; floorOneMap: the same with one Map and one array grown by push; objectsOnly: the objects in an array, no index. Each call timed by process.cpuUsage (user + system, GC threads included). settled (the goal figure): each series in processes of its own (3 processes of 8 rounds per series, series rotated per process), so no call runs in a heap another series sized; before every timed call a full gc (gc(): in Node 20 gc({type:'major'}) only scavenges), three untimed calls of the same series (a full gc discards the fold’s optimized code; timed right after one, a call measures re-optimization), a minor gc and a 10 ms pause. Before 2026-12-02 the series took turns in one process and the unknown-id fold regrew the old space another series had let shrink in most calls (~475 page faults, 5–6.5× one id). batched: no forced collection, k calls of one series back to back timed together and divided by k. Figures are medians over rounds, ratios the median of per-round ratios; fold beyond one id + floor = (unknown − one − floor) / N. pageFaults: median minor page faults per settled call; unknownByRoom / floorByRoom: settled calls whose faults stayed within 2× the result array's pages + 32 (the old space had room for the N message objects V8 pretenures) against those that mapped fresh old-space pages (~470 for 30k, +7–10 ms); both kinds stay in the figures, which are medians over all calls.",
  rows,
  cold: colds.map((c, i) => ({ n: N * (i + 1), ids: 'server', ...c })),
  /** µs of CPU per minor page fault here (8 MB of fresh memory touched once per page). */
  pageFaultMicros: faultMicros,
  doublingCost: doubling,
  doublingCostBatched: doublingBatched,
  withinThreeTimes: met,
});
console.log(`figures → ${out}`);
