/**
 * Two or more runs timed in turns (lib/fold-versus.ts: one fold's workloads, in a process of
 * its own): each round times one sample of each, the order reversed every other round, so
 * load that comes and goes on a shared machine falls on all of them alike.
 */
import { median } from './stats.js';

const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc ?? (() => {});

export interface Turns {
  /** Per run, median over rounds: CPU time of this process (all its threads, GC included). */
  cpuMs: number[];
  /** Per run, median over rounds: wall-clock time. */
  wallMs: number[];
  rounds: number;
}

/**
 * One full collection, then each run warmed up for `warmupMs`, then `rounds` rounds. A
 * sample repeats a run until `sampleMs` of wall time has passed and records CPU and wall time
 * per run. Before each sample a minor collection empties the young generation, so a run pays
 * for its own garbage only. Not a full one: a full collection frees the maps of objects no
 * run holds between calls, and V8 drops the optimized code that names them, so every sample
 * would begin by recompiling (measured: today's fold 0.43× 6badced's that way, 0.99× without).
 */
export async function timeInTurns(
  runs: readonly (() => unknown)[],
  { warmupMs, rounds, sampleMs }: { warmupMs: number; rounds: number; sampleMs: number },
): Promise<Turns> {
  gc();
  for (const run of runs) {
    const warm = performance.now();
    do await run();
    while (performance.now() - warm < warmupMs);
  }
  const cpu = runs.map((): number[] => []);
  const wall = runs.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    const order = runs.map((_, k) => k);
    if (round % 2 === 1) order.reverse();
    for (const k of order) {
      gc({ type: 'minor' });
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      let n = 0;
      do {
        await runs[k]!();
        n++;
      } while (performance.now() - w0 < sampleMs);
      const c = process.cpuUsage(c0);
      wall[k]!.push((performance.now() - w0) / n);
      cpu[k]!.push((c.user + c.system) / 1000 / n);
    }
  }
  return {
    cpuMs: cpu.map(median),
    wallMs: wall.map(median),
    rounds,
  };
}
