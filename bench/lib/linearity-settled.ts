/**
 * `settled` rounds of one series in a process of its own (spawned by `linearity.bench.ts`),
 * so no other series shapes the heap its calls run in. Why a process: with the series
 * taking turns in one process, V8 sized the old space for whichever series ran before, and
 * the unknown-id fold's page faults followed the order — 60 per call after itself, ~475
 * after the one-id fold (two series alternating: 60, 474, 115, 475, …), i.e. it paid to
 * regrow what another series' run had let V8 shrink.
 *
 * Each round: a full collection, three untimed calls (a full `gc()` drops the fold's
 * optimized code; timed straight after one, a call measured re-optimization), a minor
 * collection, a 10 ms pause, then one timed call on a freshly decoded log.
 * argv: <series> <n> <server|short> <rounds> <warm-up calls>. Prints `{ ms: [], faults: [] }`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ids } from './linearity-logs.js';
import type { Series } from './linearity-series.js';
import { logs, timedCall } from './linearity-series.js';

const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const [series, n, ids, rounds, warmUp] = process.argv.slice(2) as [
  Series,
  string,
  Ids,
  string,
  string,
];
const { run, logOf } = logs(Number(n), ids);
for (let i = 0; i < Number(warmUp); i++) run[series](logOf(series));
const out = { ms: [] as number[], faults: [] as number[] };
for (let r = 0; r < Number(rounds); r++) {
  const [warm, timed] = [logOf(series), logOf(series)];
  gc();
  for (let w = 0; w < 3; w++) run[series](warm);
  gc({ type: 'minor' });
  await sleep(10);
  const call = timedCall(() => run[series](timed));
  out.ms.push(call.ms);
  out.faults.push(call.faults);
}
console.log(JSON.stringify(out));
